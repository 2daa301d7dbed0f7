// Builds the page query and the count query of a list query on Knex: selects, joins, filters,
// search, scope, order and paging. No database is touched, so `toSQL()` shows the result.
import type { Knex } from 'knex';
import { filterFragment } from './conditions.js';
import { dialectName, dialects, type SqlDialect } from './dialects/index.js';
import type { Member, RelationMember, ScalarMember } from './members.js';
import type { ListResource } from './resource.js';
import { searchFragment, searchedRelations, type ColumnNamer } from './search.js';
import { relationKey, relationPresentKey } from './to-dto.js';
import type { ListQuery } from './types.js';

/** Options shared by `buildListQueries` and `runListQuery`. */
export interface ListQueryBuildOptions {
  /** A base restriction (an ownership filter, a tenant...) applied to the page and the count. */
  scope?: (qb: Knex.QueryBuilder) => void;
}

export interface ListQueries {
  /** Rows of the requested page, `pageSize + extra` at most. */
  page: Knex.QueryBuilder;
  /** `SELECT COUNT(*) AS total` over the same conditions. */
  count: Knex.QueryBuilder;
  dialect: SqlDialect;
}

/** Quotes `schema.table` part by part. */
function quoteTable(d: SqlDialect, table: string): string {
  return table.split('.').map(d.quote).join('.');
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

function join(qb: Knex.QueryBuilder, d: SqlDialect, m: RelationMember, names: ColumnNamer): void {
  qb.joinRaw(
    `LEFT JOIN ${quoteTable(d, m.table)} ${d.quote(m.alias)} ON ` +
      `${names.of(m.alias, m.foreignColumn)} = ${names.base(m.localColumn)}`,
  );
}

function orderExpression(
  d: SqlDialect,
  member: ScalarMember,
  names: ColumnNamer,
  desc: boolean,
): string {
  const column = names.base(member.column);
  const expr =
    member.type === 'string' || member.type === 'enum'
      ? d.orderText(column, member.type === 'enum')
      : column;
  return `${expr} ${desc ? 'DESC' : 'ASC'}${member.nullable ? d.nullsOrder(desc) : ''}`;
}

/** The ORDER BY terms: the asked order (or the default), then the id as tie-breaker. */
function orderTerms(
  d: SqlDialect,
  resource: ListResource<unknown>,
  query: ListQuery,
  names: ColumnNamer,
): string[] {
  const id = resource.idMember;
  const terms: string[] = [];
  let first: ScalarMember | undefined;
  let desc = true;
  if (query.orderBy) {
    first = resource.member(query.orderBy) as ScalarMember;
    desc = query.desc;
  } else if (resource.createdOnMember) {
    first = resource.createdOnMember;
  }
  if (first) terms.push(orderExpression(d, first, names, desc));
  if (first?.property !== id.property) terms.push(orderExpression(d, id, names, true));
  return terms;
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
  const d = dialects[dialectName(knex)];
  const names = namer(d, resource.table);
  const where = (qb: Knex.QueryBuilder, forCount: boolean) => {
    const relations =
      forCount && !query.search
        ? []
        : forCount
          ? searchedRelations(resource.members)
          : resource.members;
    for (const m of relations) if (m.kind === 'relation') join(qb, d, m, names);
    // Called on the builder itself so a scope may add its own join; it must only add ANDed terms.
    options.scope?.(qb);
    for (const filter of query.filters) {
      const member = resource.member(filter.field) as ScalarMember;
      const { sql, bindings } = filterFragment(d, member, names.base(member.column), filter);
      qb.whereRaw(sql, bindings as Knex.RawBinding[]);
    }
    if (query.search) {
      const group = searchFragment(d, resource.members, names, query.search);
      if (group) qb.whereRaw(group.sql, group.bindings as Knex.RawBinding[]);
    }
  };

  const page = knex.from(resource.table);
  page.select(selections(d, resource, names).map((s) => knex.raw(s)));
  where(page, false);
  page.orderByRaw(orderTerms(d, resource, query, names).join(', '));
  page.limit(query.pageSize + (options.extraRows ?? 0));
  const offset = (query.pageNumber - 1) * query.pageSize;
  if (offset > 0) page.offset(offset);

  const count = knex.from(resource.table);
  count.select(knex.raw('COUNT(*) AS total'));
  where(count, true);
  return { page, count, dialect: d };
}

export type { Member };
