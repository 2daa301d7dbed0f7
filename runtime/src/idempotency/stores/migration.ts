// The Knex migrations of the idempotency key table of the PostgreSQL and MySQL stores, for apps
// that manage their schema with their own migrations (see docs/stores.md): one creating the table,
// one bringing a table made by an older release up to date.
import type { Knex } from 'knex';
import { sqlFamily } from '../../sql/dialect.js';
import { mysqlStatements } from './mysql-sql.js';
import { postgresStatements } from './postgres-sql.js';
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

function statementsFor(knex: Knex, tableName: string) {
  const family = sqlFamily(knex);
  if (family === 'postgres') return postgresStatements(tableName);
  if (family === 'mysql') return mysqlStatements(tableName);
  throw new IdempotencyStoreError(
    IdempotencyStoreErrorCode.invalidSettings,
    family,
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
      for (const statement of statementsFor(knex, tableName).createTable) await knex.raw(statement);
    },
    async down(knex) {
      await knex.raw(statementsFor(knex, tableName).dropTable);
    },
  };
}

/** MySQL's answers to adding a column that is there, or dropping one that is not. */
const ER_DUP_FIELDNAME = 1060;
const ER_CANT_DROP_FIELD_OR_KEY = 1091;

async function runTolerating(knex: Knex, statements: readonly string[], errno: number) {
  for (const statement of statements) {
    try {
      await knex.raw(statement);
    } catch (error) {
      if ((error as { errno?: number }).errno !== errno) throw error;
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
      const statements = statementsFor(knex, tableName).addColumns;
      await runTolerating(knex, statements, ER_DUP_FIELDNAME);
    },
    async down(knex) {
      const statements = statementsFor(knex, tableName).dropAddedColumns;
      await runTolerating(knex, statements, ER_CANT_DROP_FIELD_OR_KEY);
    },
  };
}
