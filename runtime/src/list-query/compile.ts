// Builds the page query and the count query of a list query on Knex: selects, joins, filters,
// search, scope, order and paging. No database is touched, so `toSQL()` shows the result.
import type { Knex } from 'knex';
import {
  asListCaller,
  collectionFrom,
  quoteTable,
  visibleCondition,
  type ListCaller,
} from './collections.js';
import { filterFragment, type Fragment } from './conditions.js';
import { dialectFor, type ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { Member, RelationMember } from './members.js';
import {
  expressionOf,
  orderByTerms,
  orderKeys,
  reversed,
  seekCondition,
  type OrderKey,
} from './order.js';
import { groupConditions } from './parse-groups.js';
import type { QueryTarget } from './paths.js';
import type { ListResource } from './resource.js';
import { searchFragment, searchedRelations, type ColumnNamer } from './search.js';
import { selectedMembers } from './select.js';
import { relationKey, relationPresentKey } from './to-dto.js';
import type { FilterOperation, ListFilter, ListFilterGroup, ListQuery } from './types.js';

/** Options shared by `buildListQueries` and `runListQuery`. */
export interface ListQueryBuildOptions {
  /** A base restriction (an ownership filter, a tenant...) applied to the page and the count. */
  scope?: (qb: Knex.QueryBuilder) => void;
  /**
   * The caller, for relations and collections of tenant and owned tables (`tenantColumn`,
   * `ownerColumn`): only the rows of its tenant, and of those its own (unless it holds an
   * `ownerBypass` role), are joined, listed, filtered and searched. @default anonymous
   */
  caller?: ListCaller;
  /** The caller's principal alone (no roles, no tenant), when `caller` is not given. @default '' */
  principal?: string;
}

export interface ListQueries {
  /**
   * Rows of the requested page, `pageSize + extra` at most; for a `previous` cursor, in the
   * opposite order (the rows nearest the cursor first).
   */
  page: Knex.QueryBuilder;
  /** `SELECT COUNT(*) AS total` over the same conditions. */
  count: Knex.QueryBuilder;
  dialect: SqlDialect;
}

function namer(d: SqlDialect, table: string): ColumnNamer {
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
function selections(
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

/** LEFT JOIN of a relation; for a tenant or owned table, only a related row in the caller's scope. */
function join(
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

/** The operations a null value matches (docs/list-query.md, Filters). */
const MATCHES_NULL = new Set<FilterOperation>(['NotEqual', 'NotContains', 'NotIn', 'IsNull']);

const nonNull = (f: Fragment, expr: string): Fragment => ({
  sql: `(${expr} IS NOT NULL AND ${f.sql})`,
  bindings: f.bindings,
});

const NEGATED: Partial<Record<FilterOperation, FilterOperation>> = {
  NotEqual: 'Equal',
  NotContains: 'Contains',
  NotIn: 'In',
};

/**
 * A filter on a member of a collection's elements: some element matches (`EXISTS`); for
 * NotEqual, NotContains and NotIn, no element matches what the positive operation would.
 */
function anyElement(
  d: SqlDialect,
  target: Extract<QueryTarget, { kind: 'collection' }>,
  names: ColumnNamer,
  filter: ListFilter,
  alias: string,
  caller: ListCaller,
): Fragment {
  const m = target.collection;
  const positive = NEGATED[filter.operation];
  const { from, parent } = collectionFrom(d, m, alias);
  const match = filterFragment(
    d,
    target.member,
    `${d.quote(alias)}.${d.quote(target.member.column)}`,
    positive ? { ...filter, operation: positive } : filter,
  );
  const scoped = visibleCondition(d, m, alias, caller);
  return {
    sql:
      `${positive ? 'NOT ' : ''}EXISTS (SELECT 1 FROM ${from} WHERE ` +
      `${parent} = ${names.base(m.localColumn)}${scoped ? ` AND ${scoped.sql}` : ''} AND (${match.sql}))`,
    bindings: [...(scoped?.bindings ?? []), ...match.bindings],
  };
}

/** The relations a filter on `targets` reads: their joins must be in the query. */
const relationsOf = (targets: readonly QueryTarget[]): Set<RelationMember> =>
  new Set(targets.flatMap((t) => (t.kind === 'relation' ? [t.relation] : [])));

/**
 * Builds the page and count queries of `query` without running them.
 *
 * @example
 * const { page } = buildListQueries(knex, products, query); page.toSQL().sql;
 */
export function buildListQueries(
  knex: Knex,
  resource: ListResource<unknown>,
  query: ListQuery,
  options: ListQueryBuildOptions & { extraRows?: number } = {},
): ListQueries {
  const d = dialectFor(knex);
  const names = namer(d, resource.table);
  const caller = options.caller ?? asListCaller(options.principal);
  const groups = query.groups ?? [];
  const targetOf = (filter: ListFilter) => resource.target(filter.field)!;
  let aliases = 0;
  const condition = (filter: ListFilter): Fragment => {
    const target = targetOf(filter);
    const alias = `f_${aliases++}`;
    if (target.kind === 'collection') {
      return anyElement(d, target, names, filter, alias, caller);
    }
    const expr = expressionOf(target, names);
    const plain = filterFragment(d, target.member, expr, filter);
    // Never true without a related row, as the database can tell: it may then read the joined
    // table first (SQLite reduces the LEFT JOIN to an inner one only so).
    return target.kind === 'relation' &&
      target.relation.nullable &&
      !MATCHES_NULL.has(filter.operation)
      ? nonNull(plain, expr)
      : plain;
  };
  // A group is one parenthesised term, so it can only narrow what the scope and the other
  // filters allow: `scope AND filter AND (a OR b)`.
  const grouped = (group: ListFilterGroup): Fragment => {
    const parts = group.members.map((m) => ('combine' in m ? grouped(m) : condition(m)));
    return {
      sql: `(${parts.map((p) => `(${p.sql})`).join(group.combine === 'or' ? ' OR ' : ' AND ')})`,
      bindings: parts.flatMap((p) => p.bindings),
    };
  };
  const conditions = [...query.filters.map(condition), ...groups.map(grouped)];
  // The count joins only the relations its conditions (and the search) read.
  const filtered = relationsOf([...query.filters, ...groupConditions(groups)].map(targetOf));
  const searched = (m: Member) => query.search !== undefined && searchedRelations([m]).length > 0;
  const keys = orderKeys(resource, query, names);
  const shown = selectedMembers(resource.members, query.select);
  const shownNames = new Set(shown.map((m) => m.property));
  const ordered = query.orderBy ? relationsOf([resource.target(query.orderBy)!]) : new Set();
  const where = (qb: Knex.QueryBuilder, forCount: boolean) => {
    for (const m of resource.members) {
      if (m.kind !== 'relation') continue;
      const needed =
        filtered.has(m) ||
        searched(m) ||
        (!forCount && (shownNames.has(m.property) || ordered.has(m)));
      if (needed) join(qb, d, m, names, caller);
    }
    // Called on the builder itself so a scope may add its own join; it must only add ANDed terms.
    options.scope?.(qb);
    for (const { sql, bindings } of conditions) qb.whereRaw(sql, bindings as Knex.RawBinding[]);
    if (query.search) {
      const group = searchFragment(d, resource.members, names, query.search, caller, {
        table: resource.table,
        database: knex.client,
      });
      if (group) qb.whereRaw(group.sql, group.bindings as Knex.RawBinding[]);
    }
  };

  const page = knex.from(resource.table);
  page.select(selections(d, resource, shown, keys, names).map((s) => knex.raw(s)));
  where(page, false);
  const cursor = query.cursor;
  const order = cursor?.direction === 'previous' ? reversed(keys) : keys;
  if (cursor) {
    const seek = seekCondition(d, order, cursor.values);
    page.whereRaw(seek.sql, seek.bindings as Knex.RawBinding[]);
  }
  page.orderByRaw(orderByTerms(d, order).join(', '));
  page.limit(query.pageSize + (options.extraRows ?? 0));
  const offset = cursor ? 0 : (query.pageNumber - 1) * query.pageSize;
  if (offset > 0 && d.deferOffset) {
    // The offset skips over the ids alone (the order's index), then the page's rows are read;
    // the conditions stay on the outer query too, which keeps the database reading it by id.
    const id = names.base(resource.idMember.column);
    const ids = page.clone().clearSelect().select(knex.raw(id)).offset(offset);
    const keys = knex.select(knex.raw(d.quote(resource.idMember.column))).from(ids.as('page_ids'));
    page.whereIn(knex.raw(id) as unknown as string, keys);
  } else if (offset > 0) page.offset(offset);

  const count = knex.from(resource.table);
  count.select(knex.raw('COUNT(*) AS total'));
  where(count, true);
  return { page, count, dialect: d };
}

export type { Member };
