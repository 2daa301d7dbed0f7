// SQLite's LIKE and lower() fold ASCII only ('É' stays 'É'). The engine compares through
// slicekit_lower(), a JavaScript toLowerCase() registered on each better-sqlite3 connection, so
// SQLite folds é/É like PostgreSQL and MariaDB do.

/** The SQL name of the JavaScript lower-casing the list query compares through. */
export const SQLITE_LOWER = 'slicekit_lower';

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
