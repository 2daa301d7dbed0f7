// @slicekit/runtime/health: liveness and readiness probes, the database check, and draining an
// HTTP server on shutdown (docs/operations.md#health-probes).
export * from './check.js';
export * from './router.js';
export * from './database.js';
export * from './drain.js';
