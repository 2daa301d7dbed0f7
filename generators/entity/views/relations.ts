// The view of <entity>.relations.ts, the one slice file written from the whole app model on every
// run: the DTO members the entity's relations add (a reference's nested object, a collection's or
// a many-to-many's array) as JSON Schemas, and how the list query reads each (a joined table, the
// rows of another table). Its dto.ts spreads them into the DTO.
import { idField } from '../../model/fields.js';
import type { RelationTarget } from '../../model/types.js';
import type { EntityModel, FieldModel } from '../../model/types.js';
import { dtoSchema } from '../schemas.js';
import { hasRelations, sliceBase } from './base.js';

export { hasRelations };

/** The owner column of an owned entity's table (generators/model/fields.ts `ownerField`). */
const OWNER_COLUMN = 'owned_by';
/** The deleted-on column of a soft-deleting entity's table (`deletionFields`). */
const DELETED_COLUMN = 'deleted_on';

/** One DTO member of a relation: its name, schema, list-query mapping and doc line. */
export interface RelationMember {
  name: string;
  doc: string;
  schema: Record<string, unknown>;
  mapping: Record<string, unknown>;
}

/** The schema of a related row as a nested member shows it: its id, then the chosen fields. */
function rowSchema(show: readonly FieldModel[]): Record<string, unknown> {
  return dtoSchema([idField(), ...show]);
}

/** The columns keeping a related table to the rows the caller may see: its own, the live ones. */
const owner = (target: RelationTarget) => ({
  ...(target.owned ? { ownerColumn: OWNER_COLUMN } : {}),
  ...(target.softDelete ? { deletedColumn: DELETED_COLUMN } : {}),
});

/** Every relation member of `model`'s DTO: references, then collections, then many-to-manys. */
export function relationMembers(model: EntityModel): RelationMember[] {
  const relations = model.relations;
  if (!relations) return [];
  const references = relations.references.map(({ field, target, show }): RelationMember => {
    // Null without a referenced row, or when it is another caller's row of an owned entity (or
    // a deleted one, listed with the deleted rows referring to it).
    const nullable = !field.required || target.owned || target.softDelete;
    const schema = rowSchema(show);
    return {
      name: field.reference!.name.camel,
      doc: `The ${target.name.words} ${field.name.camel} names${target.owned ? ' (null unless the caller owns it)' : ''}.`,
      schema: { ...schema, type: nullable ? ['object', 'null'] : 'object' },
      mapping: {
        relation: { table: target.table, localColumn: field.column, ...owner(target) },
      },
    };
  });
  const links = relations.links.map(({ field, target, show, joinTable }): RelationMember => ({
    name: field.reference!.name.camel,
    doc: `The ${target.plural.words} ${field.name.camel} lists (a many-to-many through ${joinTable.table}).`,
    schema: { type: 'array', items: rowSchema(show) },
    mapping: { collection: { table: target.table, through: joinTable, ...owner(target) } },
  }));
  const collections = relations.collections.map(({ name, child, via, show }): RelationMember => ({
    name: name.camel,
    doc: `The ${child.plural.words} whose ${via.name.camel} is this ${model.name.words}.`,
    schema: { type: 'array', items: rowSchema(show) },
    mapping: { collection: { table: child.table, foreignKey: via.column, ...owner(child) } },
  }));
  return [...references, ...collections, ...links];
}

export function relationsView(model: EntityModel) {
  const members = relationMembers(model);
  return {
    ...sliceBase(model),
    members,
    names: members.map((m) => m.name),
    deferred: model.relations?.deferred ?? [],
  };
}
