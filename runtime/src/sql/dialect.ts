// Which database a Knex instance talks to: the one place every area (CRUD, list query, events,
// sequences, reference data, idempotency stores) asks, with one error for any other database.
import type { Knex } from 'knex';
import { SlicekitError } from '../errors.js';

/** The databases slicekit runs on. */
export type SqlFamily = 'postgres' | 'mysql' | 'sqlite';

/** A Knex client other than pg, mysql/mysql2 or better-sqlite3. */
export class UnsupportedDatabaseError extends SlicekitError {
  override name = 'UnsupportedDatabaseError';
  /** Knex's name of the client's dialect, e.g. `mssql`. */
  readonly dialect: string;

  constructor(dialect: string, detail: string) {
    super('sql.unsupported_database', detail);
    this.dialect = dialect;
  }
}

/**
 * The database `knex` talks to (a transaction or a query builder reports its instance's). Throws
 * `UnsupportedDatabaseError` for any client but pg, mysql/mysql2 and better-sqlite3: the node
 * `sqlite3` driver cannot host the functions Unicode matching needs.
 *
 * @example
 * if (sqlFamily(knex) === 'postgres') await knex.raw('select nextval(?)', [name]);
 */
export function sqlFamily(knex: Knex | Knex.QueryBuilder): SqlFamily {
  // Every Knex client class carries a `dialect` name; mysql2 and better-sqlite3 inherit theirs.
  const { dialect, driverName } = knex.client as { dialect?: string; driverName?: string };
  switch (dialect) {
    case 'postgresql':
    case 'postgres':
      return 'postgres';
    case 'mysql':
      return 'mysql';
    case 'sqlite3':
      if (driverName === 'better-sqlite3') return 'sqlite';
      throw new UnsupportedDatabaseError(
        dialect,
        `slicekit runs SQLite through better-sqlite3, not ${String(driverName)}`,
      );
    default:
      throw new UnsupportedDatabaseError(
        String(dialect),
        `Knex dialect "${String(dialect)}" is not supported: use pg, mysql2 or better-sqlite3`,
      );
  }
}
