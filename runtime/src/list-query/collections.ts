// The SQL of a collection member's elements, shared by filters, search and loading: the child
// table (or a join table joined to the other side of a many-to-many), the expression naming the
// parent, and the conditions that keep another tenant's, another caller's and deleted elements out.
import { filterFragment, type ColumnNamer, type Fragment } from './conditions.js';
import type { ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { CollectionMember, RelationMember } from './members.js';
import type { QueryTarget } from './paths.js';
import type { FilterOperation, ListFilter } from './types.js';

/** `schema.table`, quoted part by part. */
export const quoteTable = (d: SqlDialect, table: string): string =>
  table.split('.').map(d.quote).join('.');

/** The FROM items of a collection's elements, aliased `alias`, and its parent key expression. */
export function collectionFrom(
  d: SqlDialect,
  m: CollectionMember,
  alias: string,
): { from: string; parent: string } {
  const element = `${quoteTable(d, m.table)} ${d.quote(alias)}`;
  if (!m.through) return { from: element, parent: `${d.quote(alias)}.${d.quote(m.foreignKey)}` };
  const join = `${alias}_j`;
  return {
    from:
      `${quoteTable(d, m.through.table)} ${d.quote(join)} INNER JOIN ${element} ON ` +
      `${d.quote(alias)}.${d.quote(m.through.idColumn)} = ${d.quote(join)}.${d.quote(m.through.foreignKey)}`,
    parent: `${d.quote(join)}.${d.quote(m.through.localKey)}`,
  };
}

/**
 * Who reads a list: the rows of related tenant and owned tables are confined to its tenant and its
 * own (the crud area's `Caller` is one).
 */
export interface ListCaller {
  /** `req.user.id`; `''` when anonymous. */
  readonly principal: string;
  /** Its roles: an owned table's `ownerBypass` roles reach every row of it. */
  readonly roles?: readonly string[] | undefined;
  /** Its tenant; without one, no row of a tenant table is reached. */
  readonly tenant?: string | undefined;
}

/** A caller given as a bare principal (the form list options took before tenants). */
export function asListCaller(caller: ListCaller | string | undefined): ListCaller {
  return typeof caller === 'object' ? caller : { principal: caller ?? '' };
}

/**
 * The condition keeping rows of a related table to what `caller` may reach, exactly on every
 * database: its tenant's rows of a tenant table (none without a tenant), its own rows of an owned
 * table unless it holds a bypass role; undefined when nothing is kept out.
 */
export function scopeCondition(
  d: SqlDialect,
  m: RelationMember | CollectionMember,
  alias: string,
  caller: ListCaller,
): Fragment | undefined {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  const exactly = (column: string, value: string) => {
    const { sql, twice } = d.compareText(`${d.quote(alias)}.${d.quote(column)}`, '=');
    parts.push(sql);
    bindings.push(...(twice ? [value, value] : [value]));
  };
  if (m.tenantColumn) {
    if (caller.tenant === undefined) parts.push('1 = 0');
    else exactly(m.tenantColumn, caller.tenant);
  }
  const bypass = (caller.roles ?? []).some((role) => m.ownerBypass?.includes(role));
  if (m.ownerColumn && !bypass) exactly(m.ownerColumn, caller.principal);
  return parts.length > 0 ? { sql: parts.join(' AND '), bindings } : undefined;
}

/** The condition keeping a soft-deleting related table to its live rows, or none. */
export function liveCondition(
  d: SqlDialect,
  m: RelationMember | CollectionMember,
  alias: string,
): Fragment | undefined {
  if (!m.deletedColumn) return undefined;
  return { sql: `${d.quote(alias)}.${d.quote(m.deletedColumn)} IS NULL`, bindings: [] };
}

/**
 * The rows of a related table a caller may see: those of its row scope (`scopeCondition`: its
 * tenant's, its own of an owned table) and only live ones of a soft-deleting table
 * (`liveCondition`); undefined when every row is.
 */
export function visibleCondition(
  d: SqlDialect,
  m: RelationMember | CollectionMember,
  alias: string,
  caller: ListCaller,
): Fragment | undefined {
  const parts = [scopeCondition(d, m, alias, caller), liveCondition(d, m, alias)].filter(
    (part): part is Fragment => part !== undefined,
  );
  if (parts.length === 0) return undefined;
  return {
    sql: parts.map((part) => part.sql).join(' AND '),
    bindings: parts.flatMap((part) => part.bindings),
  };
}

const NEGATED: Partial<Record<FilterOperation, FilterOperation>> = {
  NotEqual: 'Equal',
  NotContains: 'Contains',
  NotIn: 'In',
};

/**
 * A filter on a member of a collection's elements: some element matches (`EXISTS`); for
 * NotEqual, NotContains and NotIn, no element matches what the positive operation would.
 */
export function anyElement(
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
