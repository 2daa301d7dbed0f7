// What a list query's SQL takes from its order, its direction and its `select` alone, not from its
// filters, search or values: the column names, the order keys and ORDER BY, the columns the page
// reads and the members its items show. Every request of a route repeats them, so they are made
// once per list, database and shape, and kept.
import type { ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { Member, RelationMember } from './members.js';
import { orderByTerms, orderKeys, reversed, type OrderKey } from './order.js';
import { namer, selections } from './page-sql.js';
import type { ListResource } from './resource.js';
import type { ColumnNamer } from './conditions.js';
import { selectedMembers } from './select.js';
import type { ListQuery } from './types.js';

export interface QueryShape {
  names: ColumnNamer;
  /** The order's keys, the id last, as the page reads them: reversed for a `previous` cursor. */
  order: readonly OrderKey[];
  /** The ORDER BY of `order`. */
  orderBy: string;
  /** The page's select list. */
  columns: readonly string[];
  /** `columns` joined: one raw for the whole list. */
  columnList: string;
  /** The members the items show (all of them without `select`). */
  shown: readonly Member[];
  shownNames: ReadonlySet<string>;
  /** The relation the order reads, if any. */
  ordered: ReadonlySet<RelationMember>;
}

/** Shapes kept per list and database; past this many the kept ones are dropped and made anew. */
const MAX_SHAPES = 256;
const kept = new WeakMap<object, Map<SqlDialect, Map<string, QueryShape>>>();

function makeShape(
  d: SqlDialect,
  resource: ListResource<unknown>,
  query: Pick<ListQuery, 'orderBy' | 'desc' | 'select' | 'cursor'>,
): QueryShape {
  const names = namer(d, resource.table);
  const keys = orderKeys(resource, query, names);
  const order = query.cursor?.direction === 'previous' ? reversed(keys) : keys;
  const shown = selectedMembers(resource.members, query.select);
  const asked = query.orderBy ? resource.target(query.orderBy) : undefined;
  const columns = selections(d, resource, shown, keys, names);
  return {
    names,
    order,
    orderBy: orderByTerms(d, order).join(', '),
    columns,
    columnList: columns.join(', '),
    shown,
    shownNames: new Set(shown.map((m) => m.property)),
    ordered: new Set(asked?.kind === 'relation' ? [asked.relation] : []),
  };
}

/** The shape of `query` on `resource` for database `d`, made on its first use. */
export function queryShape(
  d: SqlDialect,
  resource: ListResource<unknown>,
  query: Pick<ListQuery, 'orderBy' | 'desc' | 'select' | 'cursor'>,
): QueryShape {
  let byDialect = kept.get(resource);
  if (!byDialect) kept.set(resource, (byDialect = new Map()));
  let shapes = byDialect.get(d);
  if (!shapes) byDialect.set(d, (shapes = new Map()));
  const key = JSON.stringify([
    query.orderBy ?? null,
    query.desc,
    query.cursor?.direction === 'previous',
    query.select ?? null,
  ]);
  let shape = shapes.get(key);
  if (!shape) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shape = makeShape(d, resource, query);
    shapes.set(key, shape);
  }
  return shape;
}
