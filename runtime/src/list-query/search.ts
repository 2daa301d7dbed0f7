// Free-text search: one OR group over every string member of the DTO, nested members to depth 2
// (JSON column or joined relation) and collections (child table or JSON array) with EXISTS; each
// clause null-guarded.
import { asListCaller, collectionFrom, visibleCondition, type ListCaller } from './collections.js';
import { escapeLike, type ColumnNamer, type Fragment } from './conditions.js';
import type { ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { Member } from './members.js';

/** The relations the search group reads; their LEFT JOINs must be in the query. */
export function searchedRelations(members: readonly Member[]): Member[] {
  return members.filter((m) => m.kind === 'relation' && m.members.some((s) => s.type === 'string'));
}

/** True when the DTO has at least one searchable member. */
export function hasSearchTargets(members: readonly Member[]): boolean {
  return members.some(
    (m) =>
      (m.kind === 'scalar' && m.type === 'string') ||
      ((m.kind === 'json' || m.kind === 'relation' || m.kind === 'collection') &&
        m.members.some((s) => s.type === 'string')) ||
      (m.kind === 'collection' && m.valueType === 'string') ||
      (m.kind === 'json' && m.elementType === 'string'),
  );
}

/** The base table and the database (Knex client) a search runs on, to find its search index. */
export interface SearchTable {
  table: string;
  database: unknown;
}

/** The search OR group, or undefined when the DTO has nothing to search. */
export function searchFragment(
  d: SqlDialect,
  members: readonly Member[],
  names: ColumnNamer,
  term: string,
  caller: ListCaller | string = '',
  on?: SearchTable,
): Fragment | undefined {
  const pattern = `%${escapeLike(term)}%`;
  const clauses: string[] = [];
  const bindings: unknown[] = [];
  // One null-guarded, case-insensitive match per expression, OR-ed.
  const anyMatches = (exprs: readonly string[]): Fragment => {
    const parts = exprs.map((expr) => {
      const like = d.likeCi(expr, pattern);
      return { sql: `(${expr} IS NOT NULL AND ${like.sql})`, bindings: like.bindings };
    });
    return {
      sql: parts.map((p) => p.sql).join(' OR '),
      bindings: parts.flatMap((p) => p.bindings),
    };
  };
  const add = (fragment: Fragment) => {
    clauses.push(fragment.sql);
    bindings.push(...fragment.bindings);
  };
  // The base table's own text columns: one group, narrowed by its search index where one serves.
  const own = members.flatMap((m) =>
    m.kind === 'scalar' && m.type === 'string' ? [m.column] : [],
  );
  if (own.length > 0) {
    const exact = anyMatches(own.map((c) => names.base(c)));
    const narrow = on && d.searchIndexed(on.database, on.table, names.base('rowid'), own, term);
    add(
      narrow
        ? {
            sql: `(${narrow.sql} AND (${exact.sql}))`,
            bindings: [...narrow.bindings, ...exact.bindings],
          }
        : exact,
    );
  }
  for (const m of members) {
    switch (m.kind) {
      case 'scalar':
        break;
      case 'json': {
        const keys = m.members.filter((s) => s.type === 'string').map((s) => s.source);
        if (m.shape === 'object') {
          for (const key of keys) add(anyMatches([d.jsonText(names.base(m.column), key)]));
          break;
        }
        // An array: any element (or any object element's text member) matches.
        const elementKeys = m.elementType === 'string' ? [undefined] : keys;
        if (m.shape !== 'array' || elementKeys.length === 0) break;
        const each = d.jsonArrayElements(names.base(m.column), `j_${m.property}`, elementKeys);
        const inner = anyMatches(each.texts);
        add({
          sql: `EXISTS (SELECT 1 FROM ${each.from} WHERE ${inner.sql})`,
          bindings: inner.bindings,
        });
        break;
      }
      case 'relation':
        for (const s of m.members) {
          if (s.type === 'string') add(anyMatches([names.of(m.alias, s.source)]));
        }
        break;
      case 'collection': {
        const alias = `c_${m.property}`;
        const sources = m.valueColumn
          ? m.valueType === 'string'
            ? [m.valueColumn]
            : []
          : m.members.filter((s) => s.type === 'string').map((s) => s.source);
        if (sources.length === 0) break;
        const inner = anyMatches(sources.map((source) => names.of(alias, source)));
        const { from, parent } = collectionFrom(d, m, alias);
        const scoped = visibleCondition(d, m, alias, asListCaller(caller));
        add({
          sql:
            `EXISTS (SELECT 1 FROM ${from} WHERE ${parent} = ${names.base(m.localColumn)}` +
            `${scoped ? ` AND ${scoped.sql}` : ''} AND (${inner.sql}))`,
          bindings: [...(scoped?.bindings ?? []), ...inner.bindings],
        });
        break;
      }
      case 'bytes':
      case 'computed':
        break;
    }
  }
  if (clauses.length === 0) return undefined;
  return { sql: `(${clauses.join(' OR ')})`, bindings };
}
