// The Knex migrations of the idempotency key table of the PostgreSQL and MySQL stores, for apps
// that manage their schema with their own migrations (see docs/stores.md): one creating the table,
// one bringing a table made by an older release up to date.
import type { Knex } from 'knex';
import { dialectFor, type KeyTableStatements } from '../../sql/index.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import { resolveRelationalSettings } from './store-settings.js';

/** Options of `createIdempotencyKeysMigration` and `createIdempotencyKeysUpgradeMigration`. */
export interface IdempotencyKeysMigrationOptions {
  /**
   * The table to create; must match the store's `tableName`.
   * @default 'slicekit_idempotency_keys'
   */
  tableName?: string;
}

/** A Knex migration module: what a file in the app's migrations folder exports. */
export interface IdempotencyKeysMigration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** The key table's statements on the database `knex` talks to; refused where it has none. */
export function keyTableOf(knex: Knex): KeyTableStatements {
  const { keyTable, name } = dialectFor(knex);
  if (keyTable) return keyTable;
  throw new IdempotencyStoreError(
    IdempotencyStoreErrorCode.invalidSettings,
    name,
    'the idempotency key table exists for PostgreSQL and MySQL/MariaDB only',
  );
}

/**
 * A migration creating the key table (and its expiry index) the store runs on; the store never
 * creates it.
 *
 * @example
 * // migrations/20250101000000_idempotency_keys.ts
 * import { createIdempotencyKeysMigration } from '@slicekit/runtime/idempotency/postgres';
 * export const { up, down } = createIdempotencyKeysMigration();
 */
export function createIdempotencyKeysMigration(
  options: IdempotencyKeysMigrationOptions = {},
): IdempotencyKeysMigration {
  // Same validation as the store, so a bad name fails when the migration is loaded.
  const { tableName } = resolveRelationalSettings('migration', { tableName: options.tableName });
  return {
    async up(knex) {
      for (const statement of keyTableOf(knex).createTable(tableName)) await knex.raw(statement);
    },
    async down(knex) {
      await knex.raw(keyTableOf(knex).dropTable(tableName));
    },
  };
}

/** Runs `statements`, passing over an error that says there was nothing to change. */
async function runTolerating(knex: Knex, statements: readonly string[]) {
  const keyTable = keyTableOf(knex);
  for (const statement of statements) {
    try {
      await knex.raw(statement);
    } catch (error) {
      if (!keyTable.nothingToChange(error)) throw error;
    }
  }
}

/**
 * A migration adding to an existing key table the columns later releases need (the request
 * fingerprint), so a table created by an older `createIdempotencyKeysMigration` keeps working.
 * Columns already there are left alone, so it is harmless after a new table's migration too.
 * `down` drops those columns again.
 *
 * @example
 * // migrations/20250601000000_idempotency_keys_upgrade.ts
 * import { createIdempotencyKeysUpgradeMigration } from '@slicekit/runtime/idempotency/postgres';
 * export const { up, down } = createIdempotencyKeysUpgradeMigration();
 */
export function createIdempotencyKeysUpgradeMigration(
  options: IdempotencyKeysMigrationOptions = {},
): IdempotencyKeysMigration {
  const { tableName } = resolveRelationalSettings('migration', { tableName: options.tableName });
  return {
    async up(knex) {
      await runTolerating(knex, keyTableOf(knex).addColumns(tableName));
    },
    async down(knex) {
      await runTolerating(knex, keyTableOf(knex).dropAddedColumns(tableName));
    },
  };
}
