// `defineEntityTable` (long: the definition's every option, owner, tenant and soft delete among
// them, is declared and checked here together): how an entity class is stored, property by
// property, so the repository helpers can turn a row into an entity and back the same way on
// PostgreSQL, MySQL and SQLite.
import { hash } from 'node:crypto';
import type { EntityEvents, EventDeclaration } from '../events/index.js';
import { FIELD_KINDS, fieldKinds, isFieldKind, type FieldKind } from '../fields/index.js';
import type { ListResource } from '../list-query/index.js';
import { snakeCase, readStored, writeStored } from '../sql/index.js';
import { EntityTableDefinitionError } from './errors.js';
import { keyProblems } from './table-keys.js';

/**
 * Every table defined with references or links (see referencing.ts), so deleting a row finds the
 * rows referring to it without the referenced slice knowing the slices built after it.
 */
export const referencingTables = new Set<EntityTable<unknown>>();

/** The kind of each stored field (the field-kind registry's names). */
export type { FieldKind };

type Row = Record<string, unknown>;

/** The property names of an entity, never inferred from the table's own keys. */
type PropertyOf<E> = NoInfer<keyof E & string>;

/** What `defineEntityTable` takes. */
export interface EntityTableDefinition<E> {
  /** The table name. */
  table: string;
  /** Entity name for messages, e.g. `Product`. @default the class name */
  entityName?: string;
  /** The entity class; loaded rows become instances of it without running its constructor. */
  entity: { prototype: E; name?: string };
  /**
   * Every stored property of the entity (the id included, audit, owner and tenant fields not); a name
   * that is not a property of the entity class is a type error.
   */
  fields: { [P in PropertyOf<E>]?: FieldKind };
  /** Column per property. @default the snake_case of each property */
  columns?: { [P in PropertyOf<E>]?: string };
  /** The key property. @default 'id' */
  idProperty?: string;
  /** Adds createdBy/On and updatedBy/On, stamped on save. @default false */
  audited?: boolean;
  /**
   * Adds ownedBy, stamped with the creator on insert, and confines every load, change and delete
   * to the caller's own rows; `{ bypass: ['admin'] }` lets callers holding one of those roles
   * reach every row (of their tenant, for a tenant table). @default false
   */
  owned?: boolean | { bypass: readonly string[] };
  /**
   * Adds tenantId, stamped with the caller's tenant on insert, and confines every load, change,
   * delete, list, reference and unique check to the caller's tenant, compared exactly; a caller
   * without a tenant gets 403 `auth.tenant_required`. @default false
   */
  tenant?: boolean;
  /**
   * Adds deletedOn, deletedBy and deletionId: a delete marks the row instead of removing it, every
   * load, list and reference check sees live rows only, and `restoreEntity` brings it back.
   * @default false
   */
  softDelete?: boolean;
  /**
   * Events raised on save (the spec's `RaisesEvent`), written to the outbox in the same
   * transaction as the change: a `defineEvents` list (which also types them) or bare
   * declarations. @default [] (none)
   */
  events?: readonly EventDeclaration[] | EntityEvents;
  /**
   * The properties of each unique index of the table (one group per index): a row that would
   * repeat a group's values answers 409 naming those properties. @default [] (none)
   */
  unique?: readonly (readonly PropertyOf<E>[])[];
  /** Unique text properties (each a group of its own) whose index ignores case. @default [] */
  ignoreCase?: readonly PropertyOf<E>[];
  /**
   * The reference fields (kind `reference`) and the table each refers to, given lazily so two
   * slices' modules can load in any order: a create or change naming a row the caller cannot see
   * answers 422, and deleting a referenced row does what `onDelete` says. @default {} (none)
   *
   * @example references: { customerId: { to: () => customerTable, onDelete: 'restrict' } }
   */
  references?: {
    [P in PropertyOf<E>]?: { to: () => EntityTable<unknown>; onDelete?: OnDelete };
  };
  /**
   * Many-to-many properties (an id list on the entity, not a column), each kept in a join table.
   * @default {} (none)
   *
   * @example links: { tagIds: { to: () => tagTable, joinTable: 'order_tags', localKey: 'order_id', foreignKey: 'tag_id' } }
   */
  links?: {
    [P in PropertyOf<E>]?: {
      to: () => EntityTable<unknown>;
      joinTable: string;
      localKey: string;
      foreignKey: string;
    };
  };
  /**
   * The DTO the routes answer with (its list resource), when it nests related rows: the entity
   * tag a GET sends covers what the DTO nests, so a change's `If-Match` is compared with the tag
   * of that whole DTO, read with the row locked. Without it a change compares the row's own tag.
   * @default undefined (the row alone)
   *
   * @example dto: orderResource
   */
  dto?: ListResource<unknown>;
}

/** What deleting a referenced row does to the rows referring to it. */
export type OnDelete = 'restrict' | 'cascade' | 'setNull';

/** A reference field, resolved: its column and the table it refers to. */
export interface TableReference {
  readonly property: string;
  readonly column: string;
  readonly to: () => EntityTable<unknown>;
  readonly onDelete: OnDelete;
}

/** A many-to-many property and its join table. */
export interface TableLink {
  readonly property: string;
  readonly to: () => EntityTable<unknown>;
  readonly joinTable: string;
  readonly localKey: string;
  readonly foreignKey: string;
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
  /** Roles that reach every row of an owned table (`owned: { bypass }`); empty otherwise. */
  readonly ownerBypass: readonly string[];
  /** Column of `tenantId`, for tenant tables. */
  readonly tenantColumn: string | undefined;
  /** Column of `deletedOn` for soft-deleting tables: a row is live while it is null. */
  readonly deletedColumn: string | undefined;
  readonly events: readonly EventDeclaration[];
  readonly fields: readonly StoredField[];
  /** The fields of each unique index, as `unique` declared them. */
  readonly unique: readonly (readonly StoredField[])[];
  /** The properties whose unique index ignores case. */
  readonly ignoreCase: ReadonlySet<string>;
  readonly references: readonly TableReference[];
  readonly links: readonly TableLink[];
  /** The DTO the routes answer with, when declared (see the definition's `dto`). */
  readonly dto: ListResource<unknown> | undefined;
  /** The row to write for an entity. */
  toRow(entity: E): Row;
  /** The entity a stored row stands for (an instance of the class; its constructor is not run). */
  fromRow(row: Row): E;
  /**
   * The strong entity tag of a stored row: a digest of every stored value, so any save that
   * changes the row changes it (updatedOn alone does, on audited tables), and of `nested`, what
   * the representation adds to the row (its nested objects and collections, as sent).
   */
  entityTag(row: Row, nested?: readonly unknown[]): string;
}

export const AUDIT_FIELDS: Readonly<Record<string, FieldKind>> = {
  createdBy: 'string',
  createdOn: 'date-time',
  updatedBy: 'string',
  updatedOn: 'date-time',
};

/**
 * The marks of a soft-deleted row: when, by whom, and the delete that took it (one id shared by
 * the rows a cascade took with it, so a restore brings back exactly those).
 */
export const SOFT_DELETE_FIELDS: Readonly<Record<string, FieldKind>> = {
  deletedOn: 'date-time',
  deletedBy: 'string',
  deletionId: 'uuid',
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
/** The definition as the function reads it: every keyed member by property name. */
type LooseDefinition = Omit<
  EntityTableDefinition<unknown>,
  'fields' | 'columns' | 'unique' | 'ignoreCase' | 'references' | 'links'
> & {
  fields: Record<string, FieldKind>;
  columns?: Record<string, string>;
  unique?: readonly (readonly string[])[];
  ignoreCase?: readonly string[];
  references?: Record<string, { to: () => EntityTable<unknown>; onDelete?: OnDelete }>;
  links?: Record<string, Omit<TableLink, 'property'>>;
};

function declarationsOf(
  events: EntityTableDefinition<unknown>['events'],
): readonly EventDeclaration[] {
  if (events === undefined) return [];
  return 'declarations' in events ? events.declarations : events;
}

export function defineEntityTable<E>(typed: EntityTableDefinition<E>): EntityTable<E> {
  // Checked by the type above; read here by name.
  const definition = typed as unknown as LooseDefinition;
  const problems: string[] = [];
  const table = definition.table;
  if (typeof table !== 'string' || table.length === 0) problems.push('table must be a name');
  const all: Record<string, FieldKind> = { ...definition.fields } as Record<string, FieldKind>;
  const events = declarationsOf(definition.events);
  if (definition.owned) all.ownedBy = 'string';
  if (definition.tenant) all.tenantId = 'string';
  const bypass = typeof definition.owned === 'object' ? definition.owned.bypass : [];
  if (!Array.isArray(bypass) || bypass.some((r) => typeof r !== 'string' || r.trim() === '')) {
    problems.push('owned.bypass must list role names');
  }
  if (definition.audited) Object.assign(all, AUDIT_FIELDS);
  if (definition.softDelete) Object.assign(all, SOFT_DELETE_FIELDS);
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
  events.forEach((event, i) => {
    for (const field of event.fields) {
      if (!(field in all)) problems.push(`events[${i}]: "${field}" is not a field`);
    }
  });
  problems.push(...keyProblems(definition, all));
  if (definition.dto && definition.dto.table !== table) {
    problems.push(`dto reads the table "${definition.dto.table}", not "${table}"`);
  }
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
  const tenant = fields.find((f) => f.property === 'tenantId');
  const deleted = fields.find((f) => f.property === 'deletedOn');
  const prototype = definition.entity.prototype as object;
  const defined: EntityTable<E> = {
    table,
    entityName: definition.entityName ?? definition.entity.name ?? table,
    idProperty,
    idColumn: id.column,
    idKind: id.kind,
    audited: definition.audited ?? false,
    owned: Boolean(definition.owned),
    ownerColumn: definition.owned ? owner?.column : undefined,
    ownerBypass: [...bypass],
    tenantColumn: definition.tenant ? tenant?.column : undefined,
    deletedColumn: definition.softDelete ? deleted?.column : undefined,
    events,
    fields,
    unique: (definition.unique ?? []).map((group) =>
      group.map((property) => fields.find((f) => f.property === property)!),
    ),
    ignoreCase: new Set(definition.ignoreCase ?? []),
    references: Object.entries(definition.references ?? {}).map(([property, r]) => ({
      property,
      column: fields.find((f) => f.property === property)!.column,
      to: r.to,
      onDelete: r.onDelete ?? 'restrict',
    })),
    links: Object.entries(definition.links ?? {}).map(([property, l]) => ({ property, ...l })),
    dto: definition.dto,
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
    entityTag(row, nested = []) {
      // Values as read back (decimals as numbers, date-times as instants), so the same stored
      // row gives the same tag on every load, whatever the driver hands over; an instant as its
      // epoch milliseconds (the same instant; JSON's ISO text of a Date costs several times the
      // rest). SHA-1 in one call: the tag tells stored versions of a row apart, it protects no
      // secret (docs/generated-code.md).
      const values = fields.map((f) => {
        const value = read(f.kind, row[f.column]);
        return value instanceof Date ? value.getTime() : value;
      });
      // A row whose DTO nests nothing digests as it always did, so its tags stay valid.
      const digested = JSON.stringify(nested.length === 0 ? values : [values, nested]);
      return `"${hash('sha1', digested, 'base64url').slice(0, 22)}"`;
    },
  };
  if (defined.references.length > 0 || defined.links.length > 0) {
    referencingTables.add(defined as EntityTable<unknown>);
  }
  return defined;
}
