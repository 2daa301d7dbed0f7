// Builds the page query and the count query of a list query on Knex: selects, joins, filters,
// search, scope, order and paging. No database is touched, so `toSQL()` shows the result.
import type { Knex } from 'knex';
import { anyElement, asListCaller, type ListCaller } from './collections.js';
import { filterFragment, type ColumnNamer, type Fragment } from './conditions.js';
import { dialectFor, type ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { Member, RelationMember } from './members.js';
import { expressionOf, seekCondition, type OrderKey } from './order.js';
import { groupConditions } from './parse-groups.js';
import type { QueryTarget } from './paths.js';
import type { ListResource } from './resource.js';
import { searchFragment, searchedRelations } from './search.js';
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
  const plan = planListQueries(knex, resource, query, options);
  return { page: plan.page, count: plan.count(), dialect: plan.dialect };
}

/** The page query of `buildListQueries`; the queries over its rows built only when asked for. */
export interface ListPlan {
  page: Knex.QueryBuilder;
  /** `SELECT COUNT(*) AS total` over the page's conditions. */
  count(): Knex.QueryBuilder;
  /** `SELECT 1` over the page's conditions, no order or paging (what a bounded count reads). */
  rows(): Knex.QueryBuilder;
  dialect: SqlDialect;
  /** The members the items show (all of them without `select`). */
  shown: readonly Member[];
}

/** Which query the relations are joined for (see `Planner.joined`). */
type JoinsFor = 'count' | 'page' | 'ids';

/**
 * The parts of one list query's SQL, as methods rather than closures made per request: the
 * page, count and rows queries of a plan share them.
 */
class Planner implements ListPlan {
  readonly page: Knex.QueryBuilder;
  readonly dialect: SqlDialect;
  readonly shown: readonly Member[];
  private readonly names: ColumnNamer;
  private readonly shownNames: ReadonlySet<string>;
  private readonly ordered: ReadonlySet<RelationMember>;
  private readonly caller: ListCaller;
  private readonly conditions: Fragment[];
  /** The relations the filters read: their joins must be in every query. */
  private readonly filtered: ReadonlySet<RelationMember>;
  private aliases = 0;

  constructor(
    private readonly knex: Knex,
    private readonly resource: ListResource<unknown>,
    private readonly query: ListQuery,
    private readonly options: ListQueryBuildOptions & { extraRows?: number },
  ) {
    const d = dialectFor(knex);
    const shape = queryShape(d, resource, query);
    this.dialect = d;
    this.shown = shape.shown;
    this.names = shape.names;
    this.shownNames = shape.shownNames;
    this.ordered = shape.ordered;
    this.caller = options.caller ?? asListCaller(options.principal);
    const groups = query.groups;
    const conditions: Fragment[] = [];
    for (const filter of query.filters) conditions.push(this.condition(filter));
    for (const group of groups ?? []) conditions.push(this.grouped(group));
    const read = groups?.length ? [...query.filters, ...groupConditions(groups)] : query.filters;
    this.filtered = read.length ? relationsOf(read.map((f) => this.targetOf(f))) : NONE;
    this.conditions = conditions;
    this.page = this.pageQuery(shape.order, shape.orderBy, shape.columnList);
  }

  private targetOf(filter: ListFilter): QueryTarget {
    return this.resource.target(filter.field)!;
  }

  private condition(filter: ListFilter): Fragment {
    const { dialect: d, names } = this;
    const target = this.targetOf(filter);
    const alias = `f_${this.aliases++}`;
    if (target.kind === 'collection') {
      return anyElement(d, target, names, filter, alias, this.caller);
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
  }

  // A group is one parenthesised term, so it can only narrow what the scope and the other
  // filters allow: `scope AND filter AND (a OR b)`.
  private grouped(group: ListFilterGroup): Fragment {
    const parts = group.members.map((m) => ('combine' in m ? this.grouped(m) : this.condition(m)));
    return {
      sql: `(${parts.map((p) => `(${p.sql})`).join(group.combine === 'or' ? ' OR ' : ' AND ')})`,
      bindings: parts.flatMap((p) => p.bindings),
    };
  }

  private shownOrOrdered(m: RelationMember): boolean {
    return this.shownNames.has(m.property) || this.ordered.has(m);
  }

  /**
   * Whether `for`'s query joins `m`: every query the relations its conditions (and the search)
   * read; the page also those it shows or orders by; a deferred page's ids those it orders by and
   * the inner joins it shows (an inner join may keep rows out).
   */
  private joined(m: RelationMember, joinsFor: JoinsFor): boolean {
    if (this.filtered.has(m)) return true;
    if (this.query.search !== undefined && searchedRelations([m]).length > 0) return true;
    if (joinsFor === 'page') return this.shownOrOrdered(m);
    if (joinsFor === 'ids') {
      return (
        this.ordered.has(m) ||
        (this.shownNames.has(m.property) && innerJoined(this.dialect, m, this.caller))
      );
    }
    return false;
  }

  private where(qb: Knex.QueryBuilder, joinsFor: JoinsFor): void {
    const { dialect: d, names, caller, resource, query } = this;
    for (const m of resource.members) {
      if (m.kind === 'relation' && this.joined(m, joinsFor)) join(qb, d, m, names, caller);
    }
    // Called on the builder itself so a scope may add its own join; it must only add ANDed terms.
    this.options.scope?.(qb);
    for (const { sql, bindings } of this.conditions) {
      qb.whereRaw(sql, bindings as Knex.RawBinding[]);
    }
    if (query.search) {
      const group = searchFragment(d, resource.members, names, query.search, caller, {
        table: resource.table,
        database: this.knex.client,
      });
      if (group) qb.whereRaw(group.sql, group.bindings as Knex.RawBinding[]);
    }
  }

  private pageQuery(
    order: readonly OrderKey[],
    orderBy: string,
    columnList: string,
  ): Knex.QueryBuilder {
    const { knex, dialect: d, resource, names, query, options } = this;
    const cursor = query.cursor;
    const limit = query.pageSize + (options.extraRows ?? 0);
    const offset = cursor ? 0 : (query.pageNumber - 1) * query.pageSize;
    const deferFrom = options.deferredJoinFrom ?? d.deferredJoinFrom;
    if (offset > 0 && deferFrom !== undefined && offset >= deferFrom) {
      return deferredPage({
        ...{ knex, d, resource, names, orderBy, limit, offset },
        columns: [columnList],
        narrow: (qb) => this.where(qb, 'ids'),
        joinShown: (qb) => {
          for (const m of resource.members) {
            if (m.kind === 'relation' && this.shownOrOrdered(m)) {
              join(qb, d, m, names, this.caller);
            }
          }
        },
      });
    }
    const page = knex.from(resource.table);
    // One raw for the whole list: Knex compiles each raw apart.
    page.select(knex.raw(columnList));
    this.where(page, 'page');
    if (cursor) {
      const seek = seekCondition(d, order, cursor.values);
      page.whereRaw(seek.sql, seek.bindings as Knex.RawBinding[]);
    }
    page.orderByRaw(orderBy);
    page.limit(limit);
    if (offset > 0) page.offset(offset);
    return page;
  }

  /** A query over the page's rows, no order or paging; it calls the scope again. */
  private matching(what: string): Knex.QueryBuilder {
    const qb = this.knex.from(this.resource.table);
    qb.select(this.knex.raw(what));
    this.where(qb, 'count');
    return qb;
  }

  count(): Knex.QueryBuilder {
    return this.matching('COUNT(*) AS total');
  }

  rows(): Knex.QueryBuilder {
    return this.matching('1');
  }
}

const NONE: ReadonlySet<RelationMember> = new Set();

/** `buildListQueries`, with the count built only when a count mode needs it. */
export function planListQueries(
  knex: Knex,
  resource: ListResource<unknown>,
  query: ListQuery,
  options: ListQueryBuildOptions & { extraRows?: number } = {},
): ListPlan {
  return new Planner(knex, resource, query, options);
}

export type { Member };
