// The relations of an entity resolved against the other entities of its app (relations.ts): plain
// data the views read (tables, columns, the fields a nested member shows), never whole models.
import type { NameForms } from '../names.js';
import type { FieldModel } from './types.js';

/** The entity at the other end of a relation, by its names, table and routes. */
export interface RelationTarget {
  name: NameForms;
  plural: NameForms;
  table: string;
  resource: string;
  folder: string;
  owned: boolean;
  /** Its rows are soft-deleted: a deleted row is no row to the relations naming it. */
  softDelete: boolean;
  /**
   * Ids of the rows its seed (or its reference data) creates: what seeds and generated tests of
   * the entities referring to it name.
   */
  rowIds: string[];
  /** Its DELETE route requires an idempotency key. */
  deleteNeedsKey: boolean;
  /** The roles its DELETE route allows, when its access names them. */
  deleteRoles: readonly string[];
}

/** A reference of this entity (`customerId`) and what its nested member (`customer`) shows. */
export interface ResolvedReference {
  field: FieldModel;
  target: RelationTarget;
  /** The target's fields in the nested member, after its id. */
  show: FieldModel[];
}

/** A many-to-many of this entity (`tagIds`), its join table and what each element shows. */
export interface ResolvedLink extends ResolvedReference {
  joinTable: { table: string; localKey: string; foreignKey: string };
}

/** A one-to-many member of this entity's DTO (`lines`): rows of `child` referencing it by `via`. */
export interface ResolvedCollection {
  name: NameForms;
  child: RelationTarget;
  /** The child's reference field naming this entity. */
  via: FieldModel;
  /** The child's fields in each element, after its id. */
  show: FieldModel[];
}

/** Everything relational about one entity, as its app holds it now. */
export interface EntityRelations {
  references: ResolvedReference[];
  links: ResolvedLink[];
  collections: ResolvedCollection[];
  /** Collections whose entity is not generated yet: added once it is. */
  deferred: { name: string; entity: string }[];
}
