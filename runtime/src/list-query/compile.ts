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
import { dialectFor, type ListQueryDialect as SqlDialect } from '../sql/dialects/index.js';
import type { Member, RelationMember } from './members.js';
import { expressionOf, orderByTerms, orderKeys, reversed, seekCondition } from './order.js';
import type { QueryTarget } from './paths.js';
import type { ListResource } from './resource.js';
import { searchFragment, searchedRelations, type ColumnNamer } from './search.js';
import { relationKey, relationPresentKey } from './to-dto.js';
import type { FilterOperation, ListFilter, ListQuery } from './types.js';

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

function selections(d: SqlDialect, resource: ListResource<unknown>, names: ColumnNamer): string[] {
  const columns = new Set<string>();
  const out: string[] = [];
  const baseColumn = (column: string) => {
    if (columns.has(column)) return;
    columns.add(column);
    out.push(names.base(column));
  };
  for (const m of resource.members) {
    if (m.kind === 'scalar' || m.kind === 'json' || m.kind === 'bytes') baseColumn(m.column);
    if (m.kind === 'collection') baseColumn(m.localColumn);
    if (m.kind === 'relation') {
      out.push(
        `${names.of(m.alias, m.foreignColumn)} AS ${d.quote(relationPresentKey(m.property))}`,
      );
      for (const s of m.members) {
        out.push(
          `${names.of(m.alias, s.source)} AS ${d.quote(relationKey(m.property, s.property))}`,
        );
      }
    }
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
  const targets = query.filters.map((filter) => resource.target(filter.field)!);
  // The count joins only the relations its conditions read.
  const filtered = new Set(targets.flatMap((t) => (t.kind === 'relation' ? [t.relation] : [])));
  const where = (qb: Knex.QueryBuilder, forCount: boolean) => {
    const relations: Member[] = forCount
      ? resource.members.filter(
          (m) =>
            filtered.has(m as RelationMember) ||
            (query.search !== undefined && searchedRelations([m]).length > 0),
        )
      : [...resource.members];
    for (const m of relations) if (m.kind === 'relation') join(qb, d, m, names, caller);
    // Called on the builder itself so a scope may add its own join; it must only add ANDed terms.
    options.scope?.(qb);
    query.filters.forEach((filter, i) => {
      const target = targets[i]!;
      const { sql, bindings } =
        target.kind === 'collection'
          ? anyElement(d, target, names, filter, `f_${i}`, caller)
          : target.kind === 'relation' &&
              target.relation.nullable &&
              !MATCHES_NULL.has(filter.operation)
            ? // Never true without a related row, as the database can tell: it may then read
              // the joined table first (SQLite reduces the LEFT JOIN to an inner one only so).
              nonNull(
                filterFragment(d, target.member, expressionOf(target, names), filter),
                expressionOf(target, names),
              )
            : filterFragment(d, target.member, expressionOf(target, names), filter);
      qb.whereRaw(sql, bindings as Knex.RawBinding[]);
    });
    if (query.search) {
      const group = searchFragment(d, resource.members, names, query.search, caller, {
        table: resource.table,
        database: knex.client,
      });
      if (group) qb.whereRaw(group.sql, group.bindings as Knex.RawBinding[]);
    }
  };

  const page = knex.from(resource.table);
  page.select(selections(d, resource, names).map((s) => knex.raw(s)));
  where(page, false);
  const keys = orderKeys(resource, query, names);
  const cursor = query.cursor;
  const order = cursor?.direction === 'previous' ? reversed(keys) : keys;
  if (cursor) {
    const seek = seekCondition(d, order, cursor.values);
    page.whereRaw(seek.sql, seek.bindings as Knex.RawBinding[]);
  }
  page.orderByRaw(orderByTerms(d, order).join(', '));
  page.limit(query.pageSize + (options.extraRows ?? 0));
  const offset = cursor ? 0 : (query.pageNumber - 1) * query.pageSize;
  if (offset > 0) page.offset(offset);

  const count = knex.from(resource.table);
  count.select(knex.raw('COUNT(*) AS total'));
  where(count, true);
  return { page, count, dialect: d };
}

export type { Member };
