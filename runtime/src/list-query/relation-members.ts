// The members of a DTO backed by other tables: a nested object from a joined table (many-to-one)
// and an array from a child table or, through a join table, from the other side of a
// many-to-many; their sub-members are what filters, order and search may reach by a dotted path.
import type { CollectionMapping, RelationMapping } from './definition.js';
import type { CollectionMember, RelationMember, SubMember } from './members.js';
import { snakeCase } from './names.js';
import { shapeOf, type JsonSchema, type SchemaShape } from './schema.js';

/** The sub-members of a nested object or of an array's object elements. */
export function subMembers(
  properties: Record<string, JsonSchema>,
  columns: Record<string, string> | undefined,
  problems: string[],
  path: string,
  defaultSource: (property: string) => string = snakeCase,
): SubMember[] {
  for (const key of Object.keys(columns ?? {})) {
    if (!(key in properties)) problems.push(`${path}.columns.${key} names no sub-property`);
  }
  return Object.entries(properties).map(([property, schema]) => {
    const shape = shapeOf(schema);
    return {
      property,
      type: shape.shape === 'scalar' ? shape.type : 'opaque',
      source: columns?.[property] ?? defaultSource(property),
      ...(shape.shape === 'scalar' && shape.enumValues ? { enumValues: shape.enumValues } : {}),
    };
  });
}

/** A nested object from a LEFT JOINed table, or undefined (with a problem). */
export function relationMember(
  property: string,
  shape: SchemaShape,
  r: RelationMapping | undefined,
  problems: string[],
  nullable = true,
): RelationMember | undefined {
  const at = `dto property "${property}"`;
  if (shape.shape !== 'object') {
    problems.push(`${at}: a relation mapping needs an object with properties`);
    return undefined;
  }
  if (!r?.table || !r.localColumn) {
    problems.push(`${at}: relation needs table and localColumn`);
    return undefined;
  }
  return {
    kind: 'relation',
    property,
    table: r.table,
    alias: `r_${snakeCase(property)}`,
    localColumn: r.localColumn,
    foreignColumn: r.foreignColumn ?? 'id',
    members: subMembers(shape.properties, r.columns, problems, `columns.${property}.relation`),
    ...(r.ownerColumn ? { ownerColumn: r.ownerColumn } : {}),
    ...(r.deletedColumn ? { deletedColumn: r.deletedColumn } : {}),
    nullable,
  };
}

/** An array from a child table (or a many-to-many's other side), or undefined (with a problem). */
export function collectionMember(
  property: string,
  shape: SchemaShape,
  c: CollectionMapping | undefined,
  problems: string[],
): CollectionMember | undefined {
  const at = `dto property "${property}"`;
  if (shape.shape !== 'array') {
    problems.push(`${at}: a collection mapping needs an array`);
    return undefined;
  }
  if (!c?.table || !(c.foreignKey || c.through)) {
    problems.push(`${at}: collection needs table and foreignKey (or through)`);
    return undefined;
  }
  if (c.through && !(c.through.table && c.through.localKey && c.through.foreignKey)) {
    problems.push(`${at}: through needs table, localKey and foreignKey`);
    return undefined;
  }
  const items = shapeOf(shape.items);
  const base = {
    kind: 'collection' as const,
    property,
    table: c.table,
    foreignKey: c.through ? c.through.localKey : c.foreignKey!,
    localColumn: c.localColumn ?? '',
    ...(c.through ? { through: { idColumn: 'id', ...c.through } } : {}),
    ...(c.ownerColumn ? { ownerColumn: c.ownerColumn } : {}),
    ...(c.deletedColumn ? { deletedColumn: c.deletedColumn } : {}),
  };
  const explicitOrder = c.orderBy ? [{ column: c.orderBy, type: 'integer' as const }] : undefined;
  if (items.shape === 'object') {
    const members = subMembers(items.properties, c.columns, problems, `columns.${property}`);
    const order = explicitOrder ?? members.map((m) => ({ column: m.source, type: m.type }));
    return { ...base, members, order };
  }
  const valueColumn = c.column ?? 'value';
  const valueType = items.shape === 'scalar' ? items.type : 'opaque';
  const order = explicitOrder ?? [{ column: valueColumn, type: valueType }];
  return { ...base, valueColumn, valueType, members: [], order };
}
