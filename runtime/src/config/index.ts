// @slicekit/runtime/config: strict reading of settings from environment variables
// (see docs/reliability.md).
export * from './env.js';
export * from './errors.js';
export * from './origins.js';
