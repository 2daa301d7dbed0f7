// What a create migration adds for relations: a foreign key per reference column (with its
// onDelete) and the join table of each many-to-many, with a composite primary key and a foreign
// key to each side. Written by templates/entity/partials/foreign-key.hbs and the migration.
import type { EntityModel } from '../../model/types.js';

const ON_DELETE = { restrict: 'RESTRICT', cascade: 'CASCADE', setNull: 'SET NULL' } as const;

/** `table.foreign('<column>').references('id').inTable('<table>').onDelete('<onDelete>')`. */
export interface ForeignKey {
  column: string;
  table: string;
  onDelete: string;
}

/** A join table: two id columns, both the primary key, each a foreign key. */
export interface JoinTable {
  table: string;
  columns: string[];
  foreignKeys: ForeignKey[];
  /** The second column, indexed on its own (the key's first column already is). */
  index: string;
}

/** The foreign keys of the entity's reference columns (the referenced tables must exist first). */
export function foreignKeys(model: EntityModel): ForeignKey[] {
  return (model.relations?.references ?? []).map((r) => ({
    column: r.field.column,
    table: r.target.table,
    onDelete: ON_DELETE[r.field.reference!.onDelete],
  }));
}

/** The join tables of the entity's many-to-manys, created after its own table. */
export function joinTables(model: EntityModel): JoinTable[] {
  return (model.relations?.links ?? []).map(({ joinTable, target }) => ({
    table: joinTable.table,
    columns: [joinTable.localKey, joinTable.foreignKey],
    // A join row goes with either of its rows.
    foreignKeys: [
      { column: joinTable.localKey, table: model.table, onDelete: ON_DELETE.cascade },
      { column: joinTable.foreignKey, table: target.table, onDelete: ON_DELETE.cascade },
    ],
    index: joinTable.foreignKey,
  }));
}
