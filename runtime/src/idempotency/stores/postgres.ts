// @slicekit/runtime/idempotency/postgres: the PostgreSQL idempotency store for apps running
// several instances. Needs the optional peer dependency `pg`.
import { addIdempotentKeyWithStore } from '../index.js';
import { PostgresIdempotencyStore, type PostgresConnection } from './postgres-store.js';
import {
  lazyRelationalStore,
  splitConnection,
  type RelationalStoreHandle,
  type WithConnection,
} from './relational-registration.js';
import type { RelationalStoreSettings } from './store-settings.js';

export {
  createIdempotencyKeysMigration,
  createIdempotencyKeysUpgradeMigration,
} from './migration.js';
export type { IdempotencyKeysMigration, IdempotencyKeysMigrationOptions } from './migration.js';
export type { RelationalStoreHandle } from './relational-registration.js';
export type { RelationalStoreSettings, StoreLogger } from './store-settings.js';
export { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
export type { PostgresConnection } from './postgres-store.js';

/** A connection string or `pg` pool, or settings carrying one as `connection`. */
export type PostgresStoreConnection = PostgresConnection | WithConnection<PostgresConnection>;

type App = Parameters<typeof addIdempotentKeyWithStore>[0];
type Configure = Parameters<typeof addIdempotentKeyWithStore>[2];

function isConnection(value: unknown): value is PostgresConnection {
  // Duck-typed: a pool from another copy of pg is still a pool (a bare Client is not).
  const pool = value as { connect?: unknown; query?: unknown; totalCount?: unknown } | null;
  return (
    typeof value === 'string' ||
    (typeof pool === 'object' &&
      pool !== null &&
      typeof pool.connect === 'function' &&
      typeof pool.query === 'function' &&
      typeof pool.totalCount === 'number')
  );
}

/**
 * Registers the idempotency guard on a PostgreSQL store shared by every instance of the app.
 * Registration rules are the guard's: an explicit store beats the default in either order, the
 * first explicit store wins, and a losing registration's `configure` never runs (nor does it
 * open a pool).
 *
 * @example
 * addIdempotencyWithPostgresStore(app, process.env.DATABASE_URL!, (options) => {
 *   options.conflictHandling = 'CachedResult';
 * });
 * addIdempotencyWithPostgresStore(app, { connection: pool, createTable: true, purgeIntervalMs: 60_000 });
 */
export function addIdempotencyWithPostgresStore(
  app: App,
  connection: PostgresStoreConnection,
  configure?: Configure,
): RelationalStoreHandle {
  const split = splitConnection('postgres', connection, isConnection);
  const { factory, handle } = lazyRelationalStore(
    'postgres',
    (timings) => new PostgresIdempotencyStore(split.connection, split.settings, timings),
  );
  addIdempotentKeyWithStore(app, factory, configure);
  return handle;
}

/**
 * Deletes expired rows of the key table once, e.g. from a scheduled job outside the app; answers
 * how many. Closes what it opened; a pool you pass stays open.
 */
export async function purgeExpired(
  connection: PostgresConnection,
  settings: Pick<
    RelationalStoreSettings,
    'tableName' | 'purgeBatchSize' | 'operationTimeoutMs'
  > = {},
): Promise<number> {
  const store = new PostgresIdempotencyStore(
    connection,
    { ...settings, poolSize: 1 },
    PURGE_TIMINGS,
  );
  try {
    return await store.purgeExpired();
  } finally {
    await store.close();
  }
}

/** Purging never looks at the timings; these only satisfy the constructor. */
const PURGE_TIMINGS = { expirationMs: 1, inFlightReservationTimeoutMs: 1, cachePrefix: 'idem' };
