// SQLite's LIKE and lower() fold ASCII only ('É' stays 'É'). The engine compares through
// slicekit_lower(), a JavaScript toLowerCase() registered on each better-sqlite3 connection, so
// SQLite folds é/É like PostgreSQL and MariaDB do.
import type { Knex } from 'knex';
import { SQLITE_LOWER } from './dialects/index.js';

/** The part of a better-sqlite3 `Database` this module uses. */
interface SqliteConnection {
  function(
    name: string,
    options: { deterministic: boolean },
    fn: (value: unknown) => unknown,
  ): unknown;
}

const installed = new WeakSet<object>();

function lower(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}

/** Registers the engine's SQL functions on one better-sqlite3 connection (idempotent). */
export function registerSqliteFunctions(connection: unknown): void {
  if (typeof connection !== 'object' || connection === null || installed.has(connection)) return;
  const db = connection as SqliteConnection;
  if (typeof db.function !== 'function') return;
  db.function(SQLITE_LOWER, { deterministic: true }, lower);
  installed.add(connection);
}

/**
 * A Knex `pool.afterCreate` hook registering the engine's functions on every new SQLite
 * connection; chain an existing hook through `next`.
 *
 * @example
 * knex({ client: 'better-sqlite3', connection, useNullAsDefault: true,
 *        pool: { afterCreate: listQueryAfterCreate() } });
 */
export function listQueryAfterCreate(
  next?: (connection: unknown, done: (error: Error | null, connection: unknown) => void) => void,
): (connection: unknown, done: (error: Error | null, connection: unknown) => void) => void {
  return function afterCreate(connection, done) {
    try {
      registerSqliteFunctions(connection);
    } catch (error) {
      done(error as Error, connection);
      return;
    }
    if (next) next(connection, done);
    else done(null, connection);
  };
}

/**
 * Makes sure the connection the next query will use has the functions, for apps that built
 * their Knex without `listQueryAfterCreate`. Knex gives better-sqlite3 a pool of one connection,
 * so registering on the connection acquired here covers the queries that follow.
 */
export async function ensureSqliteFunctions(knex: Knex): Promise<void> {
  const client = knex.client as {
    acquireConnection(): Promise<unknown>;
    releaseConnection(connection: unknown): Promise<unknown>;
  };
  const connection = await client.acquireConnection();
  try {
    registerSqliteFunctions(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}
