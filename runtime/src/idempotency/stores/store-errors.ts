// Errors raised by the shipped distributed idempotency stores (PostgreSQL, MySQL, Redis).
import { SlicekitError } from '../../errors.js';

/** Stable codes of `IdempotencyStoreError`; documented in docs/stores.md. */
export const IdempotencyStoreErrorCode = {
  /** A store operation or connection did not finish within `operationTimeoutMs`. */
  timeout: 'idempotency_store_timeout',
  /** Store settings are unusable (bad table name, cache prefix too long, missing connection). */
  invalidSettings: 'idempotency_store_invalid_settings',
  /** The store was asked for something before the app started it. */
  notStarted: 'idempotency_store_not_started',
  /** The store kept losing a race for one key and gave up instead of spinning. */
  contention: 'idempotency_store_contention',
  /** The key table was made by an older release and lacks a column; run the upgrade migration. */
  tableOutdated: 'idempotency_store_table_outdated',
} as const;

export type IdempotencyStoreErrorCode =
  (typeof IdempotencyStoreErrorCode)[keyof typeof IdempotencyStoreErrorCode];

/** A failure of a shipped store; `store` names which one ("postgres", "mysql", "redis"). */
export class IdempotencyStoreError extends SlicekitError {
  override name = 'IdempotencyStoreError';
  readonly store: string;

  constructor(
    code: IdempotencyStoreErrorCode,
    store: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, `${store} idempotency store: ${message}`, options);
    this.store = store;
  }
}
