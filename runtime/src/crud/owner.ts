// Ownership: the rows of a table a caller may reach. For an owned table, only those whose owner
// is exactly the caller's principal, on every database, so another caller's row is not found; for
// a soft-deleting table, only its live rows unless the caller asks for the deleted ones.
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import type { EntityTable } from './table.js';

type Db = Knex | Knex.Transaction;

/** Which rows of a soft-deleting table: the live ones (as every route), all, or the deleted. */
export type DeletedRows = 'exclude' | 'include' | 'only';

/**
 * The rows of `table` the caller may reach: all of them, or for an owned table only those whose
 * `ownedBy` is exactly `principal` (anonymous callers, `''`, share the rows created anonymously).
 * Another caller's row is then simply not found, so a 404 never tells that it exists.
 *
 * @example
 * const mine = await visibleRows(knex, productTable, principalOf(req)).where('price', '>', 10);
 */
export function visibleRows(
  db: Db,
  table: EntityTable<unknown>,
  principal = '',
  deleted: DeletedRows = 'exclude',
): Knex.QueryBuilder {
  return liveRowsOnly(ownRowsOnly(db(table.table), table, principal), table, deleted);
}

/**
 * Narrows `query` on `table` to its live rows (`deletedOn` null), or with `deleted` to every row
 * or to the deleted ones, when the table soft-deletes; any other table's rows are all live.
 */
export function liveRowsOnly(
  query: Knex.QueryBuilder,
  table: EntityTable<unknown>,
  deleted: DeletedRows = 'exclude',
): Knex.QueryBuilder {
  if (!table.deletedColumn || deleted === 'include') return query;
  const column = `${table.table}.${table.deletedColumn}`;
  return deleted === 'only' ? query.whereNotNull(column) : query.whereNull(column);
}

/**
 * Narrows `query` on `table` to the rows `principal` owns, when the table is owned. The owner
 * compares byte for byte on every database: MySQL's usual collations would also match `ALICE`,
 * `alicé` and `alice ` to `alice`, so there the collation's match (which can use the index) is
 * narrowed by a binary one.
 */
export function ownRowsOnly(
  query: Knex.QueryBuilder,
  table: EntityTable<unknown>,
  principal: string,
): Knex.QueryBuilder {
  if (!table.ownerColumn) return query;
  const column = `${table.table}.${table.ownerColumn}`;
  return dialectFor(query).whereExactly(query, column, principal);
}
