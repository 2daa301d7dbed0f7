// @slicekit/runtime/idempotency: the idempotency guard for Express, its options and registration,
// the store contract, and the in-process memory store.
export * from './store.js';
export {
  DEFAULT_REPLAYED_HEADERS,
  IdempotentConflictHandling,
  defaultIdempotencyOptions,
  standardIdempotencyKeyHeader,
  type ConfigureIdempotency,
  type IdempotencyOptions,
  type JsonSerializerOptions,
  type KeyScopeResolver,
  type ResolvedIdempotencyOptions,
} from './options.js';
export type { Duration } from './duration.js';
export { IdempotencyConfigError, IdempotencyErrorCode, OptionsValidationError } from './errors.js';
export { silentLogger, type IdempotencyLogger } from './logger.js';
export { buildKeyInfo, safeKeyOf, storageKey } from './key-info.js';
export { STANDARD_KEY_HEADER } from './key-header.js';
export { resolveScope } from './scope.js';
export {
  defaultRequestFingerprint,
  fingerprintRequest,
  type FingerprintParts,
  type RequestFingerprint,
} from './fingerprint.js';
export { DEFAULT_KEY_PATTERN } from './pattern.js';
export { IN_FLIGHT_RETRY_AFTER_SECONDS, IdempotencyProblemType } from './problems.js';
export { IDEMPOTENCY_CHANNEL, REPLAYED_HEADER, type IdempotencyOutcome } from './guard.js';
export {
  addIdempotentKey,
  addIdempotentKeyWithStore,
  type IdempotencyApp,
  type IdempotencyKeyStoreFactory,
  type IdempotencyStoreSource,
  type PreparedIdempotency,
} from './registration.js';
export { requiredIdempotentKey } from './coverage.js';
export { markAuthentication } from './scope-order.js';
export {
  MEMORY_STORE_WARNING,
  closeIdempotency,
  prepareApp,
  startApp,
  type StartAppOptions,
} from './startup.js';
