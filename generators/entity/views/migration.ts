// The view of migrations/<name>.ts: the table's columns and indexes as Knex builder calls in data
// (a method and its arguments), which templates/entity/partials/column.hbs writes, and the
// sequences the migration creates.
import { fieldKinds } from '@slicekit/runtime/fields';
import type { EntityModel, FieldModel } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { foreignKeys, joinTables } from './foreign-keys.js';
import { sequenceOptions } from './sequences.js';

/** A column: `table.<method>('<name>', ...args)`, then its constraints. */
export interface Column {
  name: string;
  method: string;
  args: unknown[];
  primary: boolean;
  notNullable: boolean;
  hasDefault: boolean;
  defaultTo?: unknown;
}

/** `table.<method>(columns)`: an index or a unique constraint. */
export interface TableIndex {
  method: 'index' | 'unique';
  columns: string[];
}

function column(f: FieldModel): Column {
  // The field kind's own column (the runtime's field-kind registry); a kind whose literal default
  // a database refuses keeps its default in the entity's constructor only.
  const { method, args, literalDefault = true } = fieldKinds[f.type].column(f);
  const hasDefault = f.hasDefault && f.default !== null && literalDefault;
  return {
    name: f.column,
    method,
    args: [...args],
    primary: f.role === 'id',
    notNullable: f.notNull,
    hasDefault,
    ...(hasDefault ? { defaultTo: f.default } : {}),
  };
}

function indexes(model: EntityModel): TableIndex[] {
  const reference = model.referenceData;
  return [
    ...[...(model.audited ? ['created_on'] : []), ...(model.owned ? ['owned_by'] : [])].map(
      (c): TableIndex => ({ method: 'index', columns: [c] }),
    ),
    // Reference rows are found by their key, which must identify one row.
    ...(reference
      ? [{ method: 'unique', columns: reference.key.map((f) => f.column) } as TableIndex]
      : []),
    // A sequence never hands out a value twice, and a unique field holds each value once: the
    // index says so (and finds a row by it).
    ...model.fields
      .filter((f) => f.sequence || f.unique)
      .map((f): TableIndex => ({ method: 'unique', columns: [f.column] })),
    // A reference column is looked up to list, check and delete rows by their referenced row.
    ...model.fields
      .filter((f) => f.reference && !f.unique)
      .map((f): TableIndex => ({ method: 'index', columns: [f.column] })),
  ];
}

export function migrationView(model: EntityModel, base: SliceBase, migrationName: string) {
  return {
    ...base,
    migrationName,
    columns: model.fields.map(column),
    indexes: indexes(model),
    sequences: model.fields.filter((f) => f.sequence).map(sequenceOptions),
    foreignKeys: foreignKeys(model),
    joinTables: joinTables(model),
  };
}
