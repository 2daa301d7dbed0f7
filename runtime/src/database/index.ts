// @slicekit/runtime/database: a database URL's Knex settings, bounded database calls and what
// follows from them: telling an unavailable database from a failed statement (503 + Retry-After),
// and retrying transactions aborted as deadlocks (see docs/reliability.md).
export * from './admin.js';
// The dialect objects, for tools that write per-database code (the upgrade generator).
export { dialectNamed, type Dialect, type DialectName } from '../sql/index.js';
export * from './connection.js';
export * from './exact-text.js';
export * from './knex-config.js';
export * from './search-index.js';
export * from './live-index.js';
export * from './live-unique.js';
export * from './timeouts.js';
export * from './transaction.js';
export * from './unavailable.js';
export * from './unique-index.js';
