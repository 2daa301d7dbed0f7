// @slicekit/runtime/sequences: named, formatted, bounded sequences (docs/sequences.md).
export * from './definition.js';
export * from './errors.js';
export * from './format.js';
export * from './next.js';
export * from './storage.js';
