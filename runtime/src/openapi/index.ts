// @slicekit/runtime/openapi: OpenAPI 3.1 from slice descriptions, and a router serving it with
// a docs page (docs/openapi.md).
export * from './build.js';
export * from './components.js';
export * from './errors.js';
export * from './router.js';
export * from './routes.js';
export * from './types.js';
