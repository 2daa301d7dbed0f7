// One object per database behind one `Dialect` interface (dialect.ts): `dialectFor(knex)` picks
// it for a Knex instance, `dialectForUrl(url)` for a DATABASE_URL, `dialectNamed(name)` by name.
// The error predicates ask every dialect, since an error may reach a caller without its Knex.
import type { Knex } from 'knex';
import type { Dialect, DialectName, ErrorFields } from './dialect.js';
import { familyOfUrl, sqlFamily } from './family.js';
import { mysql } from './mysql.js';
import { postgres } from './postgres.js';
import { sqlite } from './sqlite.js';

export type * from './dialect.js';
export type * from './key-table.js';
export { KEY_TABLE_ADDED_COLUMNS } from './key-table.js';
export { familyOfUrl, sqlFamily, UnsupportedDatabaseError, type SqlFamily } from './family.js';
export { databaseNameOf, marks, withDatabaseName } from './shared.js';
export { listQueryAfterCreate, registerSqliteFunctions } from './sqlite-functions.js';

/** Every dialect, by name. */
export const dialects: Readonly<Record<DialectName, Dialect>> = { postgres, mysql, sqlite };

/**
 * The dialect of the database `knex` (an instance, a transaction or a query builder) talks to.
 * Throws `UnsupportedDatabaseError` for any client but pg, mysql2 and better-sqlite3.
 *
 * @example
 * await dialectFor(knex).lockRows(knex('orders').where({ id })).first();
 */
export const dialectFor = (knex: Knex | Knex.QueryBuilder): Dialect => dialects[sqlFamily(knex)];

/** The dialect of the database a `DATABASE_URL` names (anything but a server URL is SQLite). */
export const dialectForUrl = (url: string): Dialect => dialects[familyOfUrl(url)];

/** The dialect called `name`. */
export const dialectNamed = (name: DialectName): Dialect => dialects[name];

/** Which of the database errors every dialect knows. */
export type DatabaseErrorKind = keyof Dialect['errors'];

/**
 * True when some database would answer `error` for `kind` (a unique or foreign key violation, a
 * conflict to retry, an unavailable database, an unknown column).
 *
 * @example
 * if (isDatabaseError('unique', error)) return conflict();
 */
export function isDatabaseError(kind: DatabaseErrorKind, error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const fields = error as ErrorFields;
  return Object.values(dialects).some((dialect) => dialect.errors[kind](fields));
}
