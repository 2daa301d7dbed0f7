// The page query's parts: the columns it reads, the joins of relations, and its paging, by offset
// over the rows or, for a deep page where the dialect gains by it, by a deferred join (the page's
// ids found over the index alone, then only those rows read whole).
import type { Knex } from 'knex';
import { quoteTable, visibleCondition, type ListCaller } from './collections.js';
import type { ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { Member, RelationMember } from './members.js';
import type { OrderKey } from './order.js';
import type { ListResource } from './resource.js';
import type { ColumnNamer } from './conditions.js';
import { relationKey, relationPresentKey } from './to-dto.js';

export function namer(d: SqlDialect, table: string): ColumnNamer {
  const base = quoteTable(d, table);
  return {
    base: (column) => `${base}.${d.quote(column)}`,
    of: (alias, column) => `${d.quote(alias)}.${d.quote(column)}`,
  };
}

/**
 * The page query's columns: those of the members the items show, then what paging needs that
 * they may leave out (the id and the order's keys, for cursors). A computed member may read any
 * column of its row, so showing one reads every column of the base table.
 */
export function selections(
  d: SqlDialect,
  resource: ListResource<unknown>,
  shown: readonly Member[],
  keys: readonly OrderKey[],
  names: ColumnNamer,
): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (key: string, sql: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(sql);
  };
  const baseColumn = (column: string) => add(column, names.base(column));
  for (const m of shown) {
    if (m.kind === 'scalar' || m.kind === 'json' || m.kind === 'bytes') baseColumn(m.column);
    if (m.kind === 'collection') baseColumn(m.localColumn);
    if (m.kind === 'relation') {
      const present = relationPresentKey(m.property);
      add(present, `${names.of(m.alias, m.foreignColumn)} AS ${d.quote(present)}`);
      for (const s of m.members) {
        const key = relationKey(m.property, s.property);
        add(key, `${names.of(m.alias, s.source)} AS ${d.quote(key)}`);
      }
    }
  }
  if (shown.some((m) => m.kind === 'computed' && m.value)) {
    for (const m of resource.members) {
      if (m.kind === 'scalar' || m.kind === 'json' || m.kind === 'bytes') baseColumn(m.column);
    }
  }
  baseColumn(resource.idMember.column);
  for (const key of keys) {
    if (key.expr === names.base(key.rowKey)) baseColumn(key.rowKey);
    else add(key.rowKey, `${key.expr} AS ${d.quote(key.rowKey)}`);
  }
  return out;
}

/** Whether a relation is joined with INNER JOIN (every row has its related row) or LEFT JOIN. */
export function innerJoined(d: SqlDialect, m: RelationMember, caller: ListCaller): boolean {
  return !m.nullable && !visibleCondition(d, m, m.alias, caller);
}

/** LEFT JOIN of a relation; for a tenant or owned table, only a related row in the caller's scope. */
export function join(
  qb: Knex.QueryBuilder,
  d: SqlDialect,
  m: RelationMember,
  names: ColumnNamer,
  caller: ListCaller,
): void {
  const scoped = visibleCondition(d, m, m.alias, caller);
  // Every row has its related row when the schema says so: an inner join, free to go either way.
  const kind = m.nullable || scoped ? 'LEFT JOIN' : 'INNER JOIN';
  qb.joinRaw(
    `${kind} ${quoteTable(d, m.table)} ${d.quote(m.alias)} ON ` +
      `${names.of(m.alias, m.foreignColumn)} = ${names.base(m.localColumn)}` +
      (scoped ? ` AND ${scoped.sql}` : ''),
    (scoped?.bindings ?? []) as Knex.Value[],
  );
}

/** What `deferredPage` builds from. */
export interface DeferredPage {
  knex: Knex;
  d: SqlDialect;
  resource: ListResource<unknown>;
  names: ColumnNamer;
  /** Adds the joins, scope, filters and search of the page to `qb` (its ids). */
  narrow: (qb: Knex.QueryBuilder) => void;
  /** Adds the joins the page's columns and order read to `qb` (its rows). */
  joinShown: (qb: Knex.QueryBuilder) => void;
  columns: readonly string[];
  orderBy: string;
  limit: number;
  offset: number;
}

/**
 * A deep page by a deferred join: `SELECT <columns> ... WHERE id IN (SELECT id FROM (SELECT id ...
 * ORDER BY ... LIMIT n OFFSET m) k) ORDER BY ...`. The offset walks the rows' ids only (on
 * MySQL/MariaDB a secondary index, whose entries hold the primary key, serves it without reading
 * the skipped rows), and only the page's rows are read whole. The inner query keeps every row the
 * plain page query keeps (the same conditions and inner joins), and the id, last of every order,
 * makes the order total: the page is the same rows in the same order.
 */
export function deferredPage(p: DeferredPage): Knex.QueryBuilder {
  const { knex, d, names } = p;
  const id = names.base(p.resource.idMember.column);
  const ids = knex.from(p.resource.table).select(knex.raw(`${id} AS ${d.quote('k_id')}`));
  p.narrow(ids);
  ids.orderByRaw(p.orderBy).limit(p.limit).offset(p.offset);
  const page = knex.from(p.resource.table);
  page.select(knex.raw(p.columns.join(', ')));
  p.joinShown(page);
  // MySQL takes no LIMIT in an IN subquery; a derived table in it is allowed everywhere.
  // (Knex puts a builder bound to `?` in parentheses, with its bindings.)
  page.whereRaw(`${id} IN (SELECT ${d.quote('k_id')} FROM ? ${d.quote('k')})`, [ids]);
  page.orderByRaw(p.orderBy);
  return page;
}
