// @slicekit/runtime/idempotency/knex: the idempotency store in the app's own PostgreSQL or
// MySQL/MariaDB database, on the app's Knex instance (its pool, its timeouts). The key table comes
// from a migration the app runs: `idempotencyKeysMigration()`.
import type { Knex } from 'knex';
import { dialectFor } from '../../sql/index.js';
import { addIdempotentKeyWithStore } from '../index.js';
import { KnexIdempotencyStore, keyTableFamily, type KnexStoreSettings } from './knex-store.js';
import {
  createIdempotencyKeysMigration,
  type IdempotencyKeysMigration,
  type IdempotencyKeysMigrationOptions,
} from './migration.js';
import { lazyRelationalStore, type RelationalStoreHandle } from './relational-registration.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import { resolveRelationalSettings } from './store-settings.js';

export {
  createIdempotencyKeysMigration,
  createIdempotencyKeysUpgradeMigration,
} from './migration.js';
export type { IdempotencyKeysMigration, IdempotencyKeysMigrationOptions } from './migration.js';
export type { RelationalStoreHandle } from './relational-registration.js';
export type { KnexStoreSettings } from './knex-store.js';
export type { StoreLogger } from './store-settings.js';
export { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';

/** A Knex instance on PostgreSQL or MySQL/MariaDB, or settings carrying one as `knex`. */
export type KnexStoreConnection = Knex | (KnexStoreSettings & { knex: Knex });

type App = Parameters<typeof addIdempotentKeyWithStore>[0];
type Configure = Parameters<typeof addIdempotentKeyWithStore>[2];

function isKnex(value: unknown): value is Knex {
  // A Knex instance is a function carrying its client (and a raw method).
  const knex = value as { client?: unknown; raw?: unknown } | null;
  return typeof value === 'function' && typeof knex?.raw === 'function' && !!knex.client;
}

/**
 * Registers the idempotency guard on a store kept in the app's own database, through `knex`:
 * every instance of the app on that database shares the keys. The store sends its statements
 * raw through Knex, one round trip each (on MySQL, reserving a key that is already taken adds a
 * second to read it; no `multipleStatements` needed), never creates the table
 * (run `idempotencyKeysMigration()` among the app's migrations) and never destroys `knex`.
 * Registration rules are the guard's: an explicit store beats the default in either order, the
 * first explicit store wins, and a losing registration's `configure` never runs.
 *
 * @example
 * addIdempotencyWithKnexStore(app, knex, (options) => {
 *   options.conflictHandling = 'CachedResult';
 * });
 * addIdempotencyWithKnexStore(app, { knex, purgeIntervalMs: 60_000, logger });
 */
export function addIdempotencyWithKnexStore(
  app: App,
  connection: KnexStoreConnection,
  configure?: Configure,
): RelationalStoreHandle {
  const { knex, ...settings } = isKnex(connection) ? { knex: connection } : connection;
  if (!isKnex(knex)) {
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.invalidSettings,
      'knex',
      'knex must be a Knex instance',
    );
  }
  // Fail at registration on a bad table name or number, or on SQLite, not on the first request.
  const family = keyTableFamily(knex);
  resolveRelationalSettings(family, settings);
  const { factory, handle } = lazyRelationalStore(
    family,
    (timings) => new KnexIdempotencyStore(knex, settings, timings),
  );
  addIdempotentKeyWithStore(app, factory, configure);
  return handle;
}

/**
 * The key table's migration for an app that may run on any of its databases: on PostgreSQL and
 * MySQL it creates the table `createIdempotencyKeysMigration` does; on SQLite, where the keys stay
 * in the process (the memory store), it creates nothing.
 *
 * @example
 * // migrations/00000000000002_slicekit_idempotency_keys.ts
 * import { idempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';
 * export const { up, down } = idempotencyKeysMigration();
 */
export function idempotencyKeysMigration(
  options: IdempotencyKeysMigrationOptions = {},
): IdempotencyKeysMigration {
  const table = createIdempotencyKeysMigration(options);
  const onServer = (knex: Knex) => dialectFor(knex).keyTable !== undefined;
  return {
    async up(knex) {
      if (onServer(knex)) await table.up(knex);
    },
    async down(knex) {
      if (onServer(knex)) await table.down(knex);
    },
  };
}

/**
 * The database that keeps idempotency keys in a table on `knex` (`PostgreSQL`, `MySQL`), or
 * undefined where they stay in the process (SQLite: the memory store).
 *
 * @example
 * if (keyTableDatabase(knex)) addIdempotencyWithKnexStore(app, { knex });
 */
export function keyTableDatabase(knex: Knex): string | undefined {
  const dialect = dialectFor(knex);
  return dialect.keyTable ? dialect.label : undefined;
}
