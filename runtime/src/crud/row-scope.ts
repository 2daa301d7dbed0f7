// The row scope: the rows of a table a caller may reach, as a list of conditions that every load,
// change, delete, list, nested route, reference check and unique check joins. A tenant table keeps
// the caller's tenant's rows; an owned table the caller's own rows, unless the caller holds one of
// its bypass roles. Each condition compares exactly on every database, so a row outside the scope
// is simply not found (404, never 403) and its existence does not leak. A soft-deleting table
// keeps its live rows on top of that, unless the caller asks for the deleted ones.
import type { Knex } from 'knex';
import { tenantRequired } from '../auth/index.js';
import { dialectFor } from '../sql/index.js';
import { asCaller, type Caller } from './caller.js';
import type { EntityTable } from './table.js';

type Db = Knex | Knex.Transaction;

/** Which rows of a soft-deleting table: the live ones (as every route), all, or the deleted. */
export type DeletedRows = 'exclude' | 'include' | 'only';

/** One condition of a row scope: the rows whose `column` holds exactly `equals`. */
export interface RowCondition {
  readonly column: string;
  readonly equals: string;
}

/**
 * The tenant condition of `table` for `caller`, or none for a table without tenants. A caller
 * without a tenant reaches no tenant's rows: 403 `auth.tenant_required`.
 */
export function tenantCondition(
  table: EntityTable<unknown>,
  caller: Caller | string,
): RowCondition[] {
  if (!table.tenantColumn) return [];
  const { tenant } = asCaller(caller);
  if (tenant === undefined) throw tenantRequired(table.entityName);
  return [{ column: table.tenantColumn, equals: tenant }];
}

/**
 * The conditions confining `table` to what `caller` may reach: its tenant's rows, and for an
 * owned table its own rows (anonymous callers, `''`, share the rows created anonymously) unless
 * it holds a bypass role. Empty: every row.
 */
export function rowConditions(
  table: EntityTable<unknown>,
  caller: Caller | string,
): RowCondition[] {
  const who = asCaller(caller);
  const conditions = tenantCondition(table, who);
  const bypass = (who.roles ?? []).some((role) => table.ownerBypass.includes(role));
  if (table.ownerColumn && !bypass) {
    conditions.push({ column: table.ownerColumn, equals: who.principal });
  }
  return conditions;
}

/**
 * Narrows `query` on `table` to `conditions` (`rowConditions` unless given), each byte for byte
 * on every database: MySQL's usual collations would also match `ALICE`, `alicé` and `alice ` to
 * `alice`, so there the collation's match (which can use the index) is narrowed by a binary one.
 */
export function scopeRows(
  query: Knex.QueryBuilder,
  table: EntityTable<unknown>,
  caller: Caller | string,
  conditions: readonly RowCondition[] = rowConditions(table, caller),
): Knex.QueryBuilder {
  const d = dialectFor(query);
  for (const c of conditions) d.whereExactly(query, `${table.table}.${c.column}`, c.equals);
  return query;
}

/** `scopeRows` under the name it had when only the owner narrowed rows. */
export const ownRowsOnly = (
  query: Knex.QueryBuilder,
  table: EntityTable<unknown>,
  caller: Caller | string,
): Knex.QueryBuilder => scopeRows(query, table, caller);

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
 * The rows of `table` the caller may reach (`rowConditions`), live ones only of a soft-deleting
 * table unless `deleted` says otherwise. Another caller's or tenant's row is then simply not
 * found, so a 404 never tells that it exists.
 *
 * @example
 * const mine = await visibleRows(knex, productTable, callerOf(req)).where('price', '>', 10);
 */
export function visibleRows(
  db: Db,
  table: EntityTable<unknown>,
  caller: Caller | string = '',
  deleted: DeletedRows = 'exclude',
): Knex.QueryBuilder {
  return liveRowsOnly(scopeRows(db(table.table), table, caller), table, deleted);
}
