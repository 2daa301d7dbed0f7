// @slicekit/runtime/reference-data: fixed rows applied after migrations (docs/reference-data.md).
export * from './apply.js';
export * from './define.js';
export * from './errors.js';
export * from './migrate.js';
