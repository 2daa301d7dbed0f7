// Which SQL family a Knex instance speaks; the events, sequences and reference-data areas branch on it.
import type { Knex } from 'knex';
import { SlicekitError } from '../errors.js';

export type SqlFamily = 'postgres' | 'mysql' | 'sqlite';

/** The SQL family of `knex` (a transaction or a query builder reports its instance's). */
export function sqlFamily(knex: Knex | Knex.QueryBuilder): SqlFamily {
  // Every Knex client class carries a `dialect` name; mysql2 and better-sqlite3 inherit theirs.
  const dialect = (knex.client as { dialect?: string }).dialect;
  switch (dialect) {
    case 'postgresql':
    case 'postgres':
      return 'postgres';
    case 'mysql':
      return 'mysql';
    case 'sqlite3':
    case 'better-sqlite3':
      return 'sqlite';
    default:
      throw new SlicekitError(
        'dialect_unsupported',
        `Knex dialect "${String(dialect)}" is not supported: use pg, mysql2 or better-sqlite3`,
      );
  }
}
