// @slicekit/runtime: the idempotency guard, the list-query engine and the CRUD plumbing of
// generated slices. Each area also has its own subpath export; drivers load only from theirs.
export * from './errors.js';
export * from './http/index.js';
export * from './idempotency/index.js';
export * from './list-query/index.js';
export * from './logging/index.js';
export * from './crud/index.js';
export * from './domain/index.js';
export * from './auth/index.js';
export * from './config/index.js';
export * from './database/index.js';
export * from './events/index.js';
export * from './openapi/index.js';
export * from './reference-data/index.js';
export * from './sequences/index.js';
