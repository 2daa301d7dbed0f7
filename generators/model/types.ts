// The entity spec and its resolved model, in one long file so each spec key sits beside its
// resolved form: what a spec file, the prompts or the bypass arguments describe, and what the
// templates render from. docs/entity-spec.md documents each key.
import { FIELD_KINDS, type FieldKind } from '@slicekit/runtime/fields';
import type { NameForms } from '../names.js';

/** Every field type: the kinds of the runtime's field-kind registry. */
export const FIELD_TYPES = FIELD_KINDS;
export type FieldType = FieldKind;

export const VERBS = ['POST', 'PUT', 'PATCH'] as const;
export type Verb = (typeof VERBS)[number];

/** Constraints a field or a parameter may carry (JSON Schema keywords on the request). */
export interface Constraints {
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
}

/** A sequence numbering a field on create (`@slicekit/runtime/sequences`). */
export interface SequenceSpec {
  /** Database name of the sequence. @default `<table>_<column>` */
  name?: string;
  /** How the number is written, for a string field. @default '{1}' */
  format?: string;
  /** @default 1 */
  start?: number;
  /** The last value; a create past it answers 409. @default the value type's maximum */
  max?: number;
  /** @default 'int' for an integer field, 'bigint' for a string field */
  valueType?: 'int' | 'bigint';
}

/** A field as written in a spec file. */
export interface FieldSpec extends Constraints {
  type: FieldType;
  default?: unknown;
  /** Allowed values of an `enum`. */
  values?: string[];
  /** Total digits of a `decimal`. @default 12 */
  precision?: number;
  /** Digits after the point of a `decimal`. @default 2 */
  scale?: number;
  description?: string;
  /** Sample values for seeds and generated tests, each checked against the field's rules. */
  examples?: unknown[];
  /** The field's name before, when an upgrade renames its column (docs/evolving-entities.md). */
  renamedFrom?: string;
  /**
   * No two rows may hold the same value: a unique index, and 409 for a duplicate. `true` compares
   * exactly (an `email` ignores case); `{ ignoreCase: true }` makes `ANA@example.com` repeat
   * `ana@example.com` on every database.
   */
  unique?: boolean | { ignoreCase?: boolean };
  /** Lists order by it (`orderBy`): an index on the column and the id, the tie-breaker. */
  sortable?: boolean;
  /** Lists filter by it (`filter=<field>:...`): an index on the column. */
  filterable?: boolean;
  /** Numbered on create from a sequence (string or integer fields). */
  sequence?: SequenceSpec;
  /** A `reference`'s entity: the PascalCase name of another entity of the app. */
  entity?: string;
  /** What deleting the referenced row does to this one. @default restrict */
  onDelete?: OnDelete;
  /** Many-to-many through a join table: the request carries an id list. @default false */
  many?: boolean;
  /** The referenced entity's fields shown in the nested DTO member (its id always is). */
  show?: string[];
  /** The one-to-many on the other side, its nested route's segment. @default this plural */
  inverse?: string;
  /** The join table of a many-to-many. @default `<entity>_<field>` in snake_case */
  joinTable?: string;
}

/** What deleting a referenced row does to the rows referencing it. */
export const ON_DELETE = ['restrict', 'cascade', 'setNull'] as const;
export type OnDelete = (typeof ON_DELETE)[number];

/** A one-to-many the entity's DTO shows: the rows of another entity referencing this one. */
export interface CollectionSpec {
  entity: string;
  /** The other entity's reference field naming this one. @default its only such field */
  via?: string;
  /** Its fields shown in each element (its id always is). */
  show?: string[];
}

/** A parameter: a field name, or an object naming a field (with overrides) or typed on its own. */
export type ParamSpec =
  | string
  | (Constraints & {
      name: string;
      type?: FieldType;
      values?: string[];
      precision?: number;
      scale?: number;
    });

/**
 * One effect of a method: set a field to a literal, to a parameter or to the current time, or
 * step a number field up or down (`{ increment: extensions }`, `by` 1 unless given).
 */
export interface EffectSpec {
  set?: string;
  value?: unknown;
  from?: string;
  now?: boolean;
  increment?: string;
  decrement?: string;
  by?: number;
}

export interface MethodSpec {
  name: string;
  parameters?: ParamSpec[];
  /** @default each parameter named after a field sets that field */
  effects?: EffectSpec[];
  /**
   * Preconditions: the method is allowed only when each named field holds the value (or one of the
   * values) given, e.g. `{ status: draft }`; otherwise it throws a `RuleViolation` (409).
   * @default {} (always allowed)
   */
  when?: Record<string, string | boolean | (string | boolean)[]>;
  description?: string;
}

export interface ActionSpec extends MethodSpec {
  /** @default the kebab-case name */
  segment?: string;
  /** @default `<Name><Entity>Request` */
  requestName?: string;
  /** @default POST */
  verb?: Verb;
}

/** Operations that may require an idempotency key (reads never do). */
export const IDEMPOTENT_OPS = ['Create', 'Update', 'Delete', 'Action'] as const;
export type IdempotentOp = (typeof IDEMPOTENT_OPS)[number];

/** Fixed rows of the entity's table, applied after every migration run. */
export interface ReferenceDataSpec {
  /** The field(s) identifying a row; the migration gives them a unique index. */
  key: string | string[];
  /** The rows: field names to values; fields left out take their default. */
  rows: Record<string, unknown>[];
}

export interface EventSpec {
  operation: 'Created' | 'Updated' | 'Deleted' | 'Restored';
  fields: string[];
  name?: string;
}

/** The spec's `access` block: operation name to rule, checked in access.ts. */
export type AccessSpec = Record<string, unknown>;

/** Who may call an operation: `anyone`, `authenticated`, or a list of role names. */
export type AccessRule = 'anyone' | 'authenticated' | string[];

/** Operations by name (`list`, `ChangePrice`...) to their rule; those not named are absent. */
export type AccessModel = Record<string, AccessRule>;

/** The whole spec file. */
export interface EntitySpec {
  entity: string;
  plural?: string;
  table?: string;
  resource?: string;
  /** @default true */
  audited?: boolean;
  /**
   * `true`, or `{ bypass: [roles] }`: callers holding one of those roles reach every row.
   * @default false
   */
  owned?: boolean | { bypass?: string[] };
  /** Rows belong to the tenant of the caller's token (AUTH_TENANT_CLAIM). @default false */
  tenant?: boolean;
  /** @default true */
  validate?: boolean;
  /** A search index over the text columns the list's `search` matches. @default true */
  searchIndex?: boolean;
  description?: string;
  fields: Record<string, FieldSpec>;
  /** @default every field without a default */
  create?: ParamSpec[];
  updates?: MethodSpec[];
  actions?: ActionSpec[];
  dto?: { include?: string[]; exclude?: string[] };
  events?: EventSpec[];
  /** Operations whose routes require an idempotency key. @default [] */
  idempotent?: IdempotentOp[];
  referenceData?: ReferenceDataSpec;
  /** One-to-many members of the DTO, by name: the rows of another entity referencing this one. */
  collections?: Record<string, CollectionSpec>;
  /** Rules every row keeps (rules.ts): `dueOn > loanedOn`, `extensions <= 2`. @default [] */
  rules?: string[];
  /** Who may call each operation (access.ts). @default {} (every operation as without it) */
  access?: AccessSpec;
  /** `PATCH /{id}` (merge patch) setting the create fields sent. @default false */
  patch?: boolean;
  /** `DELETE` marks the row (deletedOn, deletedBy); `POST /{id}/restore` brings it back. @default false */
  softDelete?: boolean;
}

// ---------------------------------------------------------------- the resolved model

export type FieldRole = 'id' | 'field' | 'owner' | 'tenant' | 'audit' | 'deletion';

export interface FieldModel extends Constraints {
  name: NameForms;
  column: string;
  type: FieldType;
  role: FieldRole;
  /** Must be given in a request that sets it. */
  required: boolean;
  /** Not null in the database: required, or with a non-null default. */
  notNull: boolean;
  /** Whether `default` was given. */
  hasDefault: boolean;
  default?: unknown;
  values?: string[];
  precision?: number;
  scale?: number;
  description?: string;
  /** The spec's sample values, used by seeds and generated tests before any drawn one. */
  examples?: unknown[];
  /** No two rows may hold the same value (a unique index; a duplicate is 409). */
  unique?: boolean;
  /** The unique index compares text ignoring case (`unique: { ignoreCase: true }`). */
  ignoreCase?: boolean;
  /** Lists order by it: an index on (column, id). */
  sortable?: boolean;
  /** Lists filter by it: an index on the column. */
  filterable?: boolean;
  /** For a `reference` field: what it refers to (the field is `customerId` for `customer`). */
  reference?: ReferenceModel;
  /** The sequence numbering it on create, every default resolved. */
  sequence?: Required<Pick<SequenceSpec, 'name' | 'format' | 'valueType'>> &
    Pick<SequenceSpec, 'start' | 'max'>;
}

/** A reference to another entity, as the spec gave it (resolved against the app in relations.ts). */
export interface ReferenceModel {
  /** The relation's own name: `customer`, `tags` (the field holds `customerId`, `tagIds`). */
  name: NameForms;
  /** The referenced entity, PascalCase. */
  entity: string;
  /** Many-to-many through `joinTable`: the field is an id list, stored in no column. */
  many: boolean;
  onDelete: OnDelete;
  /** The referenced entity's fields in the nested member; undefined: its default. */
  show?: string[];
  /** The one-to-many on the other side (`orders`), the segment of its nested route. */
  inverse: NameForms;
  /** Many-to-many: the join table, its column naming this entity and the one naming the other. */
  joinTable?: { table: string; localKey: string; foreignKey: string };
}

/** A one-to-many member of the DTO, as the spec gave it. */
export interface CollectionModel {
  name: NameForms;
  entity: string;
  via?: string;
  show?: string[];
}

export interface ParamModel extends Constraints {
  name: NameForms;
  type: FieldType;
  /** Required in the request body (otherwise it may be missing or null). */
  required: boolean;
  values?: string[];
  precision?: number;
  scale?: number;
  /** The field it was taken from, when it names one. */
  field?: FieldModel;
}

export type EffectSource =
  | { kind: 'value'; value: unknown }
  | { kind: 'param'; param: ParamModel }
  | { kind: 'now' }
  /** Adds `by` (negative for a decrement). */
  | { kind: 'step'; by: number };

export interface EffectModel {
  field: FieldModel;
  source: EffectSource;
}

/** A precondition of a method: `field` must hold one of `values`. */
export interface ConditionModel {
  field: FieldModel;
  values: (string | boolean)[];
  /** The code of the rule its guard clause throws: `order.place.status`. */
  rule: string;
}

export interface MethodModel {
  kind: 'update' | 'action';
  name: NameForms;
  params: ParamModel[];
  effects: EffectModel[];
  /** Its preconditions, in spec order; empty when it is always allowed. */
  when: ConditionModel[];
  verb: Verb;
  /** Path after `/{id}`: empty for the first update, otherwise one segment. */
  segment: string;
  requestName: string;
  description?: string;
}

export interface EventModel {
  operation: 'Created' | 'Updated' | 'Deleted' | 'Restored';
  fields: string[];
  name?: string;
}

export interface EntityModel {
  name: NameForms;
  plural: NameForms;
  table: string;
  /** URL segment of the collection, e.g. `products`. */
  resource: string;
  /** Folder under `src/slices/`. */
  folder: string;
  audited: boolean;
  owned: boolean;
  /** Roles that reach every row of an owned entity (`owned: { bypass }`); empty otherwise. */
  ownerBypass: string[];
  /** Rows belong to tenants: a tenantId column, every route confined to the caller's tenant. */
  tenant: boolean;
  validate: boolean;
  /** Whether the migration gives the searched text columns a search index. */
  searchIndex: boolean;
  description?: string;
  /**
   * Every stored field, in table order: id, the spec's fields, ownedBy, tenantId, then the audit
   * fields.
   */
  fields: FieldModel[];
  /** Many-to-many references (`tagIds`): fields of the entity kept in a join table, not a column. */
  links: FieldModel[];
  /** One-to-many members of the DTO (`lines`). */
  collections: CollectionModel[];
  create: ParamModel[];
  methods: MethodModel[];
  /** DTO properties, in order. */
  dto: FieldModel[];
  events: EventModel[];
  idempotent: IdempotentOp[];
  /** Reference rows, every field given (defaults filled in), with a stable id each. */
  referenceData?: { key: FieldModel[]; rows: Record<string, unknown>[] };
  /** Rules every row keeps, checked on create and by each method changing a side. */
  rules: RuleModel[];
  /** Who may call each operation it names; an operation not named keeps the app's auth alone. */
  access?: AccessModel;
  /** Generates `PATCH /{id}` (merge patch) over the patchable fields. */
  patch: boolean;
  /** A delete marks the row (the `deletion` fields) and `POST /{id}/restore` brings it back. */
  softDelete: boolean;
  /** Its relations resolved against the rest of its app (relations.ts); absent until then. */
  relations?: EntityRelations;
}

/** A declared rule, `dueOn > loanedOn` or `extensions <= 2` (rules.ts). */
export interface RuleModel {
  /** As written, normalised: `dueOn > loanedOn`. */
  text: string;
  left: FieldModel;
  operator: '<' | '<=' | '>' | '>=';
  right: { field: FieldModel } | { value: number };
  /** The code its RuleViolation carries: `loan.dueOn.gt.loanedOn`. */
  code: string;
}

// The relations of an entity resolved against the other entities of its app (relations.ts): plain
// data the views read (tables, columns, the fields a nested member shows), never whole models.

/** The entity at the other end of a relation, by its names, table and routes. */
export interface RelationTarget {
  name: NameForms;
  plural: NameForms;
  table: string;
  resource: string;
  folder: string;
  owned: boolean;
  /** Roles that reach every row of the owned entity. */
  ownerBypass: string[];
  /** Its rows belong to tenants. */
  tenant: boolean;
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
