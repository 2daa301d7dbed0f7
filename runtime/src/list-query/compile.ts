// Builds the page query and the count query of a list query on Knex: selects, joins, filters,
// search, scope, order and paging. No database is touched, so `toSQL()` shows the result.
import type { Knex } from 'knex';
import { asListCaller, collectionFrom, visibleCondition, type ListCaller } from './collections.js';
import { filterFragment, type Fragment } from './conditions.js';
import { dialectFor, type ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { Member, RelationMember } from './members.js';
import { expressionOf, seekCondition } from './order.js';
import { groupConditions } from './parse-groups.js';
import type { QueryTarget } from './paths.js';
import type { ListResource } from './resource.js';
import { searchFragment, searchedRelations, type ColumnNamer } from './search.js';
import { deferredPage, innerJoined, join } from './page-sql.js';
import { queryShape } from './shape.js';
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
  /**
   * From this offset on (rows skipped), a page by number finds its ids first and then reads only
   * those rows (a deferred join). @default the database's: 1,000 on MySQL/MariaDB, never on
   * PostgreSQL and SQLite (docs/list-query.md, Performance)
   */
  deferredJoinFrom?: number;
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
  const { page, count, dialect } = planListQueries(knex, resource, query, options);
  return { page, count: count(), dialect };
}

/** The page query of `buildListQueries`; the queries over its rows built only when asked for. */
export interface ListPlan {
  page: Knex.QueryBuilder;
  /** `SELECT COUNT(*) AS total` over the page's conditions. */
  count: () => Knex.QueryBuilder;
  /** `SELECT 1` over the page's conditions, no order or paging (what a bounded count reads). */
  rows: () => Knex.QueryBuilder;
  dialect: SqlDialect;
  /** The members the items show (all of them without `select`). */
  shown: readonly Member[];
}

/** `buildListQueries`, with the count built only when a count mode needs it. */
export function planListQueries(
  knex: Knex,
  resource: ListResource<unknown>,
  query: ListQuery,
  options: ListQueryBuildOptions & { extraRows?: number } = {},
): ListPlan {
  const d = dialectFor(knex);
  const shape = queryShape(d, resource, query);
  const { names, order, orderBy, columns, shownNames, ordered } = shape;
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
  const shownOrOrdered = (m: RelationMember) => shownNames.has(m.property) || ordered.has(m);
  // The relations each query joins: the count those its conditions (and the search) read; the
  // page those and the ones it shows or orders by; a deferred page's ids those of the count,
  // those it orders by and the inner joins it shows (an inner join may keep rows out), its rows
  // those it shows or orders by.
  const joins = {
    count: () => false,
    page: shownOrOrdered,
    ids: (m: RelationMember) =>
      ordered.has(m) || (shownNames.has(m.property) && innerJoined(d, m, caller)),
  };
  const joinRelations = (qb: Knex.QueryBuilder, also: (m: RelationMember) => boolean) => {
    for (const m of resource.members) {
      if (m.kind !== 'relation') continue;
      const needed = filtered.has(m) || searched(m) || also(m);
      if (needed) join(qb, d, m, names, caller);
    }
  };
  const where = (qb: Knex.QueryBuilder, also: (m: RelationMember) => boolean) => {
    joinRelations(qb, also);
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

  const cursor = query.cursor;
  const limit = query.pageSize + (options.extraRows ?? 0);
  const offset = cursor ? 0 : (query.pageNumber - 1) * query.pageSize;
  const deferFrom = options.deferredJoinFrom ?? d.deferredJoinFrom;
  let page: Knex.QueryBuilder;
  if (offset > 0 && deferFrom !== undefined && offset >= deferFrom) {
    page = deferredPage({
      ...{ knex, d, resource, names, columns, orderBy, limit, offset },
      narrow: (qb) => where(qb, joins.ids),
      joinShown: (qb) => {
        for (const m of resource.members) {
          if (m.kind === 'relation' && shownOrOrdered(m)) join(qb, d, m, names, caller);
        }
      },
    });
  } else {
    page = knex.from(resource.table);
    // One raw for the whole list: Knex compiles each raw apart.
    page.select(knex.raw(columns.join(', ')));
    where(page, joins.page);
    if (cursor) {
      const seek = seekCondition(d, order, cursor.values);
      page.whereRaw(seek.sql, seek.bindings as Knex.RawBinding[]);
    }
    page.orderByRaw(orderBy);
    page.limit(limit);
    if (offset > 0) page.offset(offset);
  }

  // Only a count mode that counts needs them (and calls the scope again).
  const matching = (what: string) => () => {
    const qb = knex.from(resource.table);
    qb.select(knex.raw(what));
    where(qb, joins.count);
    return qb;
  };
  return {
    page,
    count: matching('COUNT(*) AS total'),
    rows: matching('1'),
    dialect: d,
    shown: shape.shown,
  };
}

export type { Member };
