// @slicekit/runtime/idempotency/mysql: the MySQL/MariaDB idempotency store for apps running
// several instances. Needs the optional peer dependency `mysql2`.
import { addIdempotentKeyWithStore } from '../index.js';
import { MySqlIdempotencyStore, type MySqlConnection } from './mysql-store.js';
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
export type { MySqlConnection } from './mysql-store.js';

/**
 * A connection string or `mysql2` pool (promise or callback style), or settings carrying one as
 * `connection`.
 */
export type MySqlStoreConnection = MySqlConnection | WithConnection<MySqlConnection>;

type App = Parameters<typeof addIdempotentKeyWithStore>[0];
type Configure = Parameters<typeof addIdempotentKeyWithStore>[2];

function isConnection(value: unknown): value is MySqlConnection {
  // Duck-typed: a pool from another copy of mysql2 is still a pool.
  const pool = value as { getConnection?: unknown; execute?: unknown } | null;
  return (
    typeof value === 'string' ||
    (typeof pool === 'object' &&
      pool !== null &&
      typeof pool.getConnection === 'function' &&
      typeof pool.execute === 'function')
  );
}

/**
 * Registers the idempotency guard on a MySQL or MariaDB store shared by every instance of the app.
 * Registration rules are the guard's: an explicit store beats the default in either order, the
 * first explicit store wins, and a losing registration's `configure` never runs (nor does it
 * open a pool).
 *
 * @example
 * addIdempotencyWithMySqlStore(app, process.env.DATABASE_URL!, (options) => {
 *   options.conflictHandling = 'CachedResult';
 * });
 * addIdempotencyWithMySqlStore(app, { connection: pool, createTable: true, purgeIntervalMs: 60_000 });
 */
export function addIdempotencyWithMySqlStore(
  app: App,
  connection: MySqlStoreConnection,
  configure?: Configure,
): RelationalStoreHandle {
  const split = splitConnection('mysql', connection, isConnection);
  const { factory, handle } = lazyRelationalStore(
    'mysql',
    (timings) => new MySqlIdempotencyStore(split.connection, split.settings, timings),
  );
  addIdempotentKeyWithStore(app, factory, configure);
  return handle;
}

/**
 * Deletes expired rows of the key table once, e.g. from a scheduled job outside the app; answers
 * how many. Closes what it opened; a pool you pass stays open.
 */
export async function purgeExpired(
  connection: MySqlConnection,
  settings: Pick<
    RelationalStoreSettings,
    'tableName' | 'purgeBatchSize' | 'operationTimeoutMs'
  > = {},
): Promise<number> {
  const store = new MySqlIdempotencyStore(connection, { ...settings, poolSize: 1 }, PURGE_TIMINGS);
  try {
    return await store.purgeExpired();
  } finally {
    await store.close();
  }
}

/** Purging never looks at the timings; these only satisfy the constructor. */
const PURGE_TIMINGS = { expirationMs: 1, inFlightReservationTimeoutMs: 1, cachePrefix: 'idem' };
