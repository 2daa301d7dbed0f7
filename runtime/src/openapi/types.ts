// The slice description: the plain data a generated slice hands to the OpenAPI builder.

/** A JSON Schema (2020-12, which OpenAPI 3.1 uses); ajv draft-07 request schemas fit as they are. */
export type JsonSchemaObject = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The generated operations: the spec's six `CrudOp`s and the restore of a soft-deleted row. */
export type CrudOperationKind =
  'getById' | 'list' | 'create' | 'update' | 'delete' | 'restore' | 'action';

/** What the list route accepts; mirrors the list-query engine's resource definition. */
export interface ListDescription {
  /**
   * DTO fields `orderBy` accepts (camelCase). @default every scalar DTO property, and each scalar
   * member of a nested object as `parent.member`
   */
  sortable?: readonly string[];
  /** DTO fields `filter` accepts. @default every DTO property */
  filterable?: readonly string[];
  /** Whether `search` is offered (false when the DTO has no string field). @default true */
  searchable?: boolean;
  /** @default 20 */
  defaultPageSize?: number;
  /** @default 100 */
  maxPageSize?: number;
  /** @default 20 */
  maxFilters?: number;
  /** @default 2 */
  minSearchLength?: number;
  /**
   * The list takes `deleted=exclude|include|only` (a soft-deleting entity), allowed to the callers
   * `deletedAccess` names (403 to others). @default false
   */
  deleted?: boolean;
  /** Who may ask for deleted rows: the restore operation's rule. @default the list's own */
  deletedAccess?: OperationAccess;
}

/**
 * Who may call an operation (the entity spec's `access`): `anyone`, `authenticated`, or a list of
 * role names.
 */
export type OperationAccess = 'anyone' | 'authenticated' | readonly string[];

export interface OperationDescription {
  kind: CrudOperationKind;
  /**
   * Domain method name in PascalCase, for `update` and `action` (e.g. `ChangePrice`, `Approve`);
   * it names the request schema (`ChangePriceProductRequest`) and the operation id.
   */
  name?: string;
  /** HTTP method. @default get / get / post / put / delete / post / post for the kinds */
  method?: HttpMethod;
  /**
   * One path segment after `/{id}` (`approval`). @default kebab-case `name` for actions; none
   * (the by-id route itself) for updates
   */
  segment?: string;
  /** JSON Schema of the body (create, update, action). @default no body */
  request?: JsonSchemaObject;
  /**
   * Media types the body may be sent as, each with the request schema (a PATCH route takes
   * `application/merge-patch+json` first). @default ['application/json']
   */
  mediaTypes?: readonly string[];
  /** Name of the request schema. @default `Create<Entity>Request` or `<Name><Entity>Request` */
  requestName?: string;
  /** The route requires the idempotency key header (409 on a duplicate). @default false */
  idempotent?: boolean;
  /**
   * Codes of the business rules that may refuse it (a `RuleViolation`, 409 crud.rule_violation),
   * such as `order.place.status`. @default [] (none documented)
   */
  rules?: readonly string[];
  /**
   * Codes of the declared rules the request itself may break (a `RuleViolation` with status 422,
   * crud.rule_violation), such as `loan.dueOn.gt.loanedOn`. @default [] (none documented)
   */
  requestRules?: readonly string[];
  /**
   * Who may call it: a bearer requirement and 401 unless `anyone`, and 403 for a role list.
   * @default undefined (the app's `auth` option alone)
   */
  access?: OperationAccess;
  /** Success status. @default 201 for create, 204 for delete, 200 otherwise (restore too) */
  status?: number;
  /** One-line summary. @default derived from the kind and name */
  summary?: string;
  /** List parameters, for `list`. @default all DTO fields, the spec's limits */
  list?: ListDescription;
  /**
   * For a `list`: the nested route of a one-to-many, `<path>/{id}/<segment>` under the parent
   * (`{ entity: 'Customer', path: '/v1/customers', segment: 'orders' }`), 404 for an unknown
   * parent. @default the slice's own collection path
   */
  parent?: { entity: string; path: string; segment: string };
}

/** Everything the builder needs to know about one entity's slice. */
export interface SliceDescription {
  /** Entity name in PascalCase, e.g. `Product`. */
  entity: string;
  /** Collection path, e.g. `/v1/products`. */
  path: string;
  /** JSON Schema of the DTO every route returns (an object with `properties`). */
  dto: JsonSchemaObject;
  /** Name of the DTO schema. @default `<Entity>Dto` */
  dtoName?: string;
  /** Schema of the `{id}` path parameter. @default { type: 'string', format: 'uuid' } */
  idSchema?: JsonSchemaObject;
  /** Tag grouping the slice's operations. @default the entity name */
  tag?: string;
  /** The routes the slice maps (what `exclude` left). */
  operations: readonly OperationDescription[];
  /**
   * The entities its rows refer to (references, many-to-manys): its writes may answer 422 for a
   * reference to no visible row, and those entities' deletes 409 while a row refers to them.
   * @default none
   */
  references?: readonly string[];
  /**
   * Its rows belong to tenants (`tenant: true`): every operation needs a bearer token naming the
   * caller's tenant (401 without a token, 403 `auth.tenant_required` without the claim), and a row
   * of another tenant is 404. @default false
   */
  tenant?: boolean;
  /**
   * The DTO properties of each unique index (one group per index), and whether its text compares
   * ignoring case: a create or change repeating one answers 409 crud.duplicate. @default none
   */
  unique?: readonly UniqueDescription[];
}

/** One unique index: its properties, and whether `ANA@example.com` repeats `ana@example.com`. */
export interface UniqueDescription {
  fields: readonly string[];
  /** @default false (exact) */
  ignoreCase?: boolean;
}

export interface OpenApiBuildOptions {
  /** `info.title`. @default 'API' */
  title?: string;
  /** `info.version`. @default '1.0.0' */
  version?: string;
  /** `info.description`. @default undefined */
  description?: string;
  /** `servers`. @default undefined (same origin) */
  servers?: { url: string; description?: string }[];
  /**
   * Bearer-JWT security: `optional` lists it beside anonymous access, `required` demands it and
   * documents 401 on every route.
   * @default 'none'
   */
  auth?: 'none' | 'optional' | 'required';
  /** Idempotency key header name. @default 'X-Idempotency-Key' */
  idempotencyHeader?: string;
  /** Longest accepted idempotency key. @default 255 */
  maxIdempotencyKeyLength?: number;
  /**
   * The guard compares request fingerprints, so an idempotent route documents 422 for a key
   * reused with a different request; `false` when the app sets `requestFingerprint = null`.
   * @default true
   */
  idempotencyFingerprint?: boolean;
}

/** An OpenAPI 3.1 document; loosely typed, it is built once and served as JSON. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  security?: Record<string, string[]>[];
}
