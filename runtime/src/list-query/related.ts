// What a page's rows relate to, read with a bounded number of queries whatever the page size: one
// query per collection member for its elements, and, for rows read apart from a list query (one
// row by id, a row just written), one query per relation for its nested object. Elements and
// related rows of an owned table are only the caller's own.
import type { Knex } from 'knex';
import { collectionFrom, visibleCondition, quoteTable } from './collections.js';
import { dialectFor, marks, type ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { CollectionMember, Member, RelationMember } from './members.js';
import type { ListResource } from './resource.js';
import { collectionKey, relationKey, relationPresentKey } from './to-dto.js';

type Row = Record<string, unknown>;

/** The row key holding the parent key of a loaded element. */
const PARENT = 'slicekit_parent';

/** Distinct non-null values of `column` over `rows`. */
function keysOf(rows: readonly Row[], column: string): Knex.Value[] {
  return [
    ...new Set(rows.map((r) => r[column]).filter((k) => k !== null && k !== undefined)),
  ] as Knex.Value[];
}

function onConnection<T>(qb: Knex.QueryBuilder, connection: unknown): Promise<T> {
  return (connection ? qb.connection(connection) : qb) as unknown as Promise<T>;
}

/** Elements come back in the same order on every database: text in code-point order. */
function orderOf(d: SqlDialect, c: CollectionMember, alias: string): string {
  return c.order
    .map(({ column, type }) => {
      const expr = `${d.quote(alias)}.${d.quote(column)}`;
      const ordered =
        type === 'string' || type === 'enum' ? d.orderText(expr, type === 'enum') : expr;
      return `${ordered} ASC${d.nullsOrder(false)}`;
    })
    .join(', ');
}

/**
 * Attaches each collection member's elements to `rows`: one query per member (of `members`,
 * default all of the resource's).
 */
export async function loadCollections(
  knex: Knex,
  resource: ListResource<unknown>,
  rows: Row[],
  options: { principal?: string; connection?: unknown; members?: readonly Member[] } = {},
): Promise<void> {
  const d = dialectFor(knex);
  const collections = (options.members ?? resource.members).filter(
    (m): m is CollectionMember => m.kind === 'collection',
  );
  for (const c of collections) {
    const keys = keysOf(rows, c.localColumn);
    let children: Row[] = [];
    if (keys.length > 0) {
      const { from, parent } = collectionFrom(d, c, 'c');
      const owner = visibleCondition(d, c, 'c', options.principal ?? '');
      const qb = knex
        .select(knex.raw(`${d.quote('c')}.*, ${parent} AS ${d.quote(PARENT)}`))
        .from(knex.raw(from))
        .whereRaw(`${parent} IN (${marks(keys.length)})`, keys);
      if (owner) qb.whereRaw(owner.sql, owner.bindings as Knex.Value[]);
      qb.orderByRaw(orderOf(d, c, 'c'));
      children = await onConnection<Row[]>(qb, options.connection);
    }
    const byParent = new Map<string, Row[]>();
    for (const child of children) {
      const key = String(child[PARENT]);
      byParent.set(key, [...(byParent.get(key) ?? []), child]);
    }
    for (const row of rows) {
      row[collectionKey(c.property)] = byParent.get(String(row[c.localColumn])) ?? [];
    }
  }
}

/** Attaches each relation member's nested object to `rows`: one query per relation. */
async function loadRelations(
  knex: Knex,
  d: SqlDialect,
  resource: ListResource<unknown>,
  rows: Row[],
  principal: string,
): Promise<void> {
  const relations = resource.members.filter((m): m is RelationMember => m.kind === 'relation');
  for (const m of relations) {
    const keys = keysOf(rows, m.localColumn);
    const owner = visibleCondition(d, m, m.alias, principal);
    const qb = knex
      .select(
        knex.raw(`${d.quote(m.alias)}.${d.quote(m.foreignColumn)} AS ${d.quote(PARENT)}`),
        ...m.members.map((s) =>
          knex.raw(`${d.quote(m.alias)}.${d.quote(s.source)} AS ${d.quote(`s_${s.property}`)}`),
        ),
      )
      .from(knex.raw(`${quoteTable(d, m.table)} ${d.quote(m.alias)}`))
      .whereRaw(`${d.quote(m.alias)}.${d.quote(m.foreignColumn)} IN (${marks(keys.length)})`, keys);
    if (owner) qb.whereRaw(owner.sql, owner.bindings as Knex.Value[]);
    const related: Row[] = keys.length > 0 ? await qb : [];
    const byKey = new Map(related.map((r) => [String(r[PARENT]).toLowerCase(), r]));
    for (const row of rows) {
      const key = row[m.localColumn];
      const found =
        key === null || key === undefined ? undefined : byKey.get(String(key).toLowerCase());
      row[relationPresentKey(m.property)] = found ? found[PARENT] : null;
      for (const s of m.members) {
        row[relationKey(m.property, s.property)] = found ? found[`s_${s.property}`] : null;
      }
    }
  }
}

/**
 * Attaches what `rows` (as `select *` reads them) relate to, so `resource.toDto` gives them
 * whole: nested objects and collections, only the caller's own rows of owned tables. Answers
 * the rows, each with its entity tag still on it.
 *
 * @example
 * const dto = orderResource.toDto(await loadRelated(knex, orderResource, row, caller.principal));
 */
export async function loadRelated<R extends Row | Row[]>(
  knex: Knex,
  resource: ListResource<unknown>,
  rows: R,
  principal = '',
): Promise<R> {
  const list = (Array.isArray(rows) ? rows : [rows]) as Row[];
  await loadRelations(knex, dialectFor(knex), resource, list, principal);
  await loadCollections(knex, resource, list, { principal });
  return rows;
}
