// Which database a Knex instance or a URL names: what `dialectFor` reads to pick the dialect
// object, with one error for any other database.
import type { Knex } from 'knex';
import { SlicekitError } from '../../errors.js';

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
 * sqlFamily(knex); // 'postgres'
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

/**
 * The database behind a `DATABASE_URL`; anything that is not a server URL is a SQLite file.
 *
 * @example
 * familyOfUrl('postgres://127.0.0.1/app'); // 'postgres'
 */
export function familyOfUrl(url: string): SqlFamily {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^mysql:\/\//i.test(url)) return 'mysql';
  return 'sqlite';
}
