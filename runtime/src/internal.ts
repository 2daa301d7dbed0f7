// @slicekit/runtime/internal: the pieces the runtime's own test suites reach beyond the public
// surface (the store classes, the base store and its records, the key-pattern compiler). Exported
// under the `slicekit-source` condition only, so no published build can import it.
export { MemoryIdempotencyStore } from './idempotency/stores/memory.js';
export { KnexIdempotencyStore } from './idempotency/stores/knex-store.js';
export { RedisIdempotencyStore } from './idempotency/stores/redis-store.js';
export { BaseIdempotencyStore } from './idempotency/stores/base-store.js';
export {
  RecordState,
  recordState,
  type NewRecord,
  type StoredRecord,
} from './idempotency/stores/record.js';
export type { RelationalIdempotencyStore } from './idempotency/stores/relational-store.js';
export type { RelationalStoreSettings } from './idempotency/stores/store-settings.js';
export { compileKeyPattern } from './idempotency/pattern.js';
export { rowFreeExporter } from './tracing/row-free-exporter.js';
export { dialects, sqlFamily, UnsupportedDatabaseError } from './sql/dialects/index.js';
export { claimDue } from './events/claim.js';
export { PREPARED_PER_CONNECTION } from './sql/dialects/postgres-prepared.js';
export { EstimateCache, ESTIMATE_MAX_AGE_MS, reuseEstimates } from './list-query/estimates.js';
