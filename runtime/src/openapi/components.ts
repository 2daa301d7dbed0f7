// Shared components of every document: problem details, paged responses, the idempotency header.
import type { JsonSchemaObject, OpenApiBuildOptions } from './types.js';

export const PROBLEM_SCHEMA = 'ProblemDetails';
export const IDEMPOTENCY_PARAMETER = 'IdempotencyKey';
export const BEARER_SCHEME = 'bearerAuth';

/**
 * RFC 9457 problem details in the one shape of every runtime problem (docs/problems.md); the
 * kind's own extension members (field errors, list-query context) may follow.
 */
export const problemDetailsSchema: JsonSchemaObject = {
  type: 'object',
  description:
    'RFC 9457 problem details: the standard members and a stable code, then the members of ' +
    'the kind of problem (such as errors for crud.invalid_request).',
  properties: {
    type: { type: 'string', format: 'uri', description: 'the kind, urn:slicekit:problem:<name>' },
    title: { type: 'string', description: "the status's reason phrase" },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string', description: "the request's path and query" },
    code: { type: 'string', description: 'the stable code of the kind (crud.not_found)' },
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
  additionalProperties: true,
};

/**
 * `<Dto>Selection`: an item of a list page read with `select`, which carries only the members named
 * (and of a nested object or an object element only the members named): the DTO's schema with
 * nothing required, at any depth.
 */
export function selectionSchema(dto: unknown): unknown {
  const optional = (schema: unknown): unknown => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
    const out: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
    delete out.required;
    if (typeof out.properties === 'object' && out.properties !== null) {
      out.properties = Object.fromEntries(
        Object.entries(out.properties).map(([name, member]) => [name, optional(member)]),
      );
    }
    if (out.items !== undefined) out.items = optional(out.items);
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(optional);
    }
    return out;
  };
  const selection = optional(dto) as Record<string, unknown>;
  return {
    ...selection,
    description:
      'An item of a page read with select: only the members named (a nested object, or each ' +
      'object element, with only its members named).',
  };
}

/**
 * The `PagedResponse<Dto>` of a list route, matching the list-query engine's output: each item is
 * the whole DTO, or with `select` a `<Dto>Selection`.
 */
export function pagedResponseSchema(dtoRef: string, selectionRef: string): JsonSchemaObject {
  return {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: { anyOf: [{ $ref: dtoRef }, { $ref: selectionRef }] },
        description: 'each item the whole DTO, or with select only the members named',
      },
      pageCount: { type: ['integer', 'null'] },
      pageNumber: {
        type: ['integer', 'null'],
        minimum: 1,
        description: 'the page served; null for a page chosen by cursor',
      },
      pageSize: { type: 'integer', minimum: 1 },
      totalItemCount: {
        type: ['integer', 'null'],
        description: 'the full, unpaged count, as totalItemCountKind says; null when not counted',
      },
      totalItemCountKind: {
        type: ['string', 'null'],
        enum: ['exact', 'estimated', 'lowerBound', null],
        description: 'exact, the database estimate, or a lower bound (at least that many)',
      },
      hasNextPage: { type: 'boolean' },
      hasPreviousPage: { type: 'boolean' },
      nextCursor: { type: ['string', 'null'], description: 'the cursor of the next page' },
      previousCursor: { type: ['string', 'null'], description: 'the cursor of the previous page' },
    },
    required: [
      'items',
      'pageCount',
      'pageNumber',
      'pageSize',
      'totalItemCount',
      'hasNextPage',
      'hasPreviousPage',
    ],
  };
}

export function idempotencyParameter(options: OpenApiBuildOptions): JsonSchemaObject {
  return {
    name: options.idempotencyHeader ?? 'X-Idempotency-Key',
    in: 'header',
    required: true,
    description:
      'A key unique to this operation attempt: a retry with the same key is answered 409 ' +
      '(or replays the first response) instead of running again' +
      (options.idempotencyFingerprint === false
        ? '.'
        : '; the same key with a different request (method, path or body) is answered 422.'),
    schema: { type: 'string', minLength: 1, maxLength: options.maxIdempotencyKeyLength ?? 255 },
  };
}

/** A problem+json response object. */
export function problemResponse(description: string): JsonSchemaObject {
  return {
    description,
    content: {
      'application/problem+json': { schema: { $ref: `#/components/schemas/${PROBLEM_SCHEMA}` } },
    },
  };
}

const schemaMaps = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
const schemaValues = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
const schemaLists = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/**
 * A request or DTO schema as OpenAPI 3.1 wants it: `$schema` and `$id` are dropped (the document
 * declares the dialect once, and an `$id` would re-base the `$ref`s inside), and OpenAPI 3.0's
 * `nullable: true`, which ajv also accepts, becomes a `null` type. Only schema positions are
 * walked, so a property that happens to be called `nullable` or `$id` is kept.
 */
export function toOpenApiSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const source = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'nullable' && typeof value === 'boolean') continue;
    if (schemaMaps.has(key) && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toOpenApiSchema(v)]),
      );
    } else if (schemaLists.has(key) && Array.isArray(value)) {
      out[key] = value.map(toOpenApiSchema);
    } else if (schemaValues.has(key)) {
      out[key] = Array.isArray(value) ? value.map(toOpenApiSchema) : toOpenApiSchema(value);
    } else {
      out[key] = value;
    }
  }
  if (source.nullable === true && typeof source.type === 'string') {
    out.type = [source.type, 'null'];
  }
  return out;
}
