// `defineEntityTable`: how an entity class is stored, property by property, so the repository
// helpers can turn a row into an entity and back the same way on PostgreSQL, MySQL and SQLite.
import { createHash } from 'node:crypto';
import type { EventDeclaration } from '../events/declared.js';
import { FIELD_KINDS, fieldKinds, isFieldKind, type FieldKind } from '../fields/kinds.js';
import { snakeCase } from '../sql/names.js';
import { readStored, writeStored } from '../sql/values.js';
import { EntityTableDefinitionError } from './errors.js';

/** The kind of each stored field (the field-kind registry's names). */
export type { FieldKind };

type Row = Record<string, unknown>;

/** What `defineEntityTable` takes. */
export interface EntityTableDefinition<E> {
  /** The table name. */
  table: string;
  /** Entity name for messages, e.g. `Product`. @default the class name */
  entityName?: string;
  /** The entity class; loaded rows become instances of it without running its constructor. */
  entity: { prototype: E; name?: string };
  /** Every stored property of the entity (the id included, audit and owner fields not). */
  fields: Record<string, FieldKind>;
  /** Column per property. @default the snake_case of each property */
  columns?: Record<string, string>;
  /** The key property. @default 'id' */
  idProperty?: string;
  /** Adds createdBy/On and updatedBy/On, stamped on save. @default false */
  audited?: boolean;
  /**
   * Adds ownedBy, stamped with the creator on insert, and confines every load, change and delete
   * to the caller's own rows. @default false
   */
  owned?: boolean;
  /**
   * Events raised on save (the spec's `RaisesEvent`), written to the outbox in the same
   * transaction as the change. @default [] (none)
   */
  events?: readonly EventDeclaration[];
  /**
   * The properties of each unique index of the table (one group per index): a row that would
   * repeat a group's values answers 409 naming those properties. @default [] (none)
   */
  unique?: readonly (readonly string[])[];
}

/** One stored property. */
export interface StoredField {
  readonly property: string;
  readonly column: string;
  readonly kind: FieldKind;
}

/** A validated table definition; the repository helpers take it. */
export interface EntityTable<E> {
  readonly table: string;
  readonly entityName: string;
  readonly idProperty: string;
  readonly idColumn: string;
  readonly idKind: FieldKind;
  readonly audited: boolean;
  readonly owned: boolean;
  /** Column of `ownedBy`, for owned tables. */
  readonly ownerColumn: string | undefined;
  readonly events: readonly EventDeclaration[];
  readonly fields: readonly StoredField[];
  /** The fields of each unique index, as `unique` declared them. */
  readonly unique: readonly (readonly StoredField[])[];
  /** The row to write for an entity. */
  toRow(entity: E): Row;
  /** The entity a stored row stands for (an instance of the class; its constructor is not run). */
  fromRow(row: Row): E;
  /**
   * The strong entity tag of a stored row: a digest of every stored value, so any save that
   * changes the row changes it (updatedOn alone does, on audited tables).
   */
  entityTag(row: Row): string;
}

export const AUDIT_FIELDS: Readonly<Record<string, FieldKind>> = {
  createdBy: 'string',
  createdOn: 'date-time',
  updatedBy: 'string',
  updatedOn: 'date-time',
};

const read = (kind: FieldKind, value: unknown): unknown =>
  readStored(fieldKinds[kind].value, value);

const write = (kind: FieldKind, value: unknown): unknown =>
  writeStored(fieldKinds[kind].value, value);

/**
 * Describes how an entity class is stored. Throws `EntityTableDefinitionError` listing every
 * problem, so a broken definition stops the app at start-up.
 *
 * @example
 * export const productTable = defineEntityTable({
 *   table: 'products',
 *   entity: Product,
 *   fields: { id: 'uuid', name: 'string', price: 'decimal', isDiscontinued: 'boolean' },
 *   audited: true,
 * });
 */
export function defineEntityTable<E>(definition: EntityTableDefinition<E>): EntityTable<E> {
  const problems: string[] = [];
  const table = definition.table;
  if (typeof table !== 'string' || table.length === 0) problems.push('table must be a name');
  const all: Record<string, FieldKind> = { ...definition.fields };
  if (definition.owned) all.ownedBy = 'string';
  if (definition.audited) Object.assign(all, AUDIT_FIELDS);
  for (const [property, kind] of Object.entries(all)) {
    if (!isFieldKind(kind)) {
      problems.push(
        `fields.${property}: "${String(kind)}" is not a field kind; use one of ${FIELD_KINDS.join(', ')}`,
      );
    }
  }
  for (const property of Object.keys(definition.columns ?? {})) {
    if (!(property in all)) problems.push(`columns.${property} names no field`);
  }
  (definition.events ?? []).forEach((event, i) => {
    for (const field of event.fields) {
      if (!(field in all)) problems.push(`events[${i}]: "${field}" is not a field`);
    }
  });
  (definition.unique ?? []).forEach((group, i) => {
    if (group.length === 0) problems.push(`unique[${i}] names no field`);
    for (const field of group) {
      if (!(field in all)) problems.push(`unique[${i}]: "${field}" is not a field`);
    }
  });
  const idProperty = definition.idProperty ?? 'id';
  if (!(idProperty in all)) problems.push(`the id property "${idProperty}" is not in fields`);
  if (problems.length > 0) throw new EntityTableDefinitionError(table || '?', problems);

  const fields: StoredField[] = Object.entries(all).map(([property, kind]) => ({
    property,
    kind,
    column: definition.columns?.[property] ?? snakeCase(property),
  }));
  const id = fields.find((f) => f.property === idProperty)!;
  const owner = fields.find((f) => f.property === 'ownedBy');
  const prototype = definition.entity.prototype as object;
  return {
    table,
    entityName: definition.entityName ?? definition.entity.name ?? table,
    idProperty,
    idColumn: id.column,
    idKind: id.kind,
    audited: definition.audited ?? false,
    owned: definition.owned ?? false,
    ownerColumn: definition.owned ? owner?.column : undefined,
    events: definition.events ?? [],
    fields,
    unique: (definition.unique ?? []).map((group) =>
      group.map((property) => fields.find((f) => f.property === property)!),
    ),
    toRow(entity) {
      const source = entity as Row;
      const row: Row = {};
      for (const f of fields) row[f.column] = write(f.kind, source[f.property]);
      return row;
    },
    fromRow(row) {
      const entity = Object.create(prototype) as Row;
      for (const f of fields) entity[f.property] = read(f.kind, row[f.column]);
      return entity as E;
    },
    entityTag(row) {
      // Values as read back (decimals as numbers, date-times as instants), so the same stored
      // row gives the same tag on every load, whatever the driver hands over.
      const values = fields.map((f) => read(f.kind, row[f.column]));
      return `"${createHash('sha256').update(JSON.stringify(values)).digest('base64url').slice(0, 22)}"`;
    },
  };
}
