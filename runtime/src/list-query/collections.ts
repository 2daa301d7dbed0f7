// The SQL of a collection member's elements, shared by filters, search and loading: the child
// table (or a join table joined to the other side of a many-to-many), the expression naming the
// parent, and the conditions that keep another caller's elements and deleted elements out.
import type { Fragment } from './conditions.js';
import type { ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { CollectionMember, RelationMember } from './members.js';

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
 * The condition keeping rows of an owned related table to the caller's own (`principal`, exactly,
 * on every database), or none for a table that is not owned.
 */
export function ownerCondition(
  d: SqlDialect,
  m: RelationMember | CollectionMember,
  alias: string,
  principal: string,
): Fragment | undefined {
  if (!m.ownerColumn) return undefined;
  const { sql, twice } = d.compareText(`${d.quote(alias)}.${d.quote(m.ownerColumn)}`, '=');
  return { sql, bindings: twice ? [principal, principal] : [principal] };
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
 * The rows of a related table a caller may see: its own of an owned table (`ownerCondition`) and
 * only live ones of a soft-deleting table (`liveCondition`); undefined when every row is.
 */
export function visibleCondition(
  d: SqlDialect,
  m: RelationMember | CollectionMember,
  alias: string,
  principal: string,
): Fragment | undefined {
  const parts = [ownerCondition(d, m, alias, principal), liveCondition(d, m, alias)].filter(
    (part): part is Fragment => part !== undefined,
  );
  if (parts.length === 0) return undefined;
  return {
    sql: parts.map((part) => part.sql).join(' AND '),
    bindings: parts.flatMap((part) => part.bindings),
  };
}
