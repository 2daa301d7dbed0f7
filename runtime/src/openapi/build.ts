// `buildOpenApiDocument`: an OpenAPI 3.1 document from the slice descriptions of an app.
import {
  BEARER_SCHEME,
  IDEMPOTENCY_PARAMETER,
  idempotencyParameter,
  PROBLEM_SCHEMA,
  pagedResponseSchema,
  problemDetailsSchema,
  selectionSchema,
  problemResponse,
  toOpenApiSchema,
} from './components.js';
import { describeAccess, describeDeletedAccess, needsBearer } from './access.js';
import { OpenApiDescriptionError } from './errors.js';
import { listParameters, PREFERENCE_APPLIED } from './list-parameters.js';
import { checkSlice, resolveOperation, type ResolvedOperation } from './operations.js';
import type { OpenApiBuildOptions, OpenApiDocument, SliceDescription } from './types.js';

const dtoRef = (name: string) => `#/components/schemas/${name}`;

const IF_MATCH_PARAMETER = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'Change only if the row still has this entity tag (its ETag); 412 otherwise.',
  schema: { type: 'string' },
};

const ETAG_HEADER = {
  description: 'The version of the row: send it back in If-Match to change only that version.',
  schema: { type: 'string' },
};

function operationObject(
  slice: SliceDescription,
  op: ResolvedOperation,
  dtoName: string,
  options: OpenApiBuildOptions,
  referenced: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const d = op.description;
  const parameters: unknown[] = [];
  if (d.idempotent) parameters.push({ $ref: `#/components/parameters/${IDEMPOTENCY_PARAMETER}` });
  if (d.kind === 'list') parameters.push(...listParameters(slice.dto, d.list ?? {}));
  // Changes of one row may be made conditional on the version the client read (RFC 9110).
  const conditional =
    d.kind === 'update' || d.kind === 'action' || d.kind === 'delete' || d.kind === 'restore';
  if (conditional) parameters.push(IF_MATCH_PARAMETER);

  const responses: Record<string, unknown> = {};
  const success =
    op.status === 204
      ? { description: 'Done; no body.' }
      : {
          description:
            d.kind === 'list'
              ? `One page of ${dtoName} (with \`select\`, each item has only the members named)`
              : `The ${dtoName}`,
          headers:
            d.kind === 'list'
              ? { 'Preference-Applied': PREFERENCE_APPLIED }
              : { ETag: ETAG_HEADER },
          content: {
            'application/json': {
              schema: { $ref: dtoRef(d.kind === 'list' ? `${dtoName}PagedResponse` : dtoName) },
            },
          },
        };
  responses[String(op.status)] = success;
  if (d.request || d.kind === 'list' || d.idempotent || op.onItem) {
    const reasons = [
      d.request ? 'the body fails validation' : '',
      d.kind === 'list' ? 'the query string is malformed' : '',
      op.onItem ? 'the id is malformed' : '',
      d.idempotent ? 'the idempotency key is missing or malformed' : '',
    ].filter(Boolean);
    responses['400'] = problemResponse(`Bad request: ${reasons.join('; ')}.`);
  }
  if (options.auth && options.auth !== 'none') {
    responses['401'] = problemResponse(
      'The bearer token is missing (when required), malformed, expired or not trusted.',
    );
  }
  if (op.onItem) {
    const owner = d.kind === 'list' && d.parent ? d.parent.entity : slice.entity;
    responses['404'] = problemResponse(`No ${owner} with this id is visible to the caller.`);
  }
  if (conditional) {
    responses['412'] = problemResponse(
      `The ${slice.entity} changed since the version named in If-Match; read it again and retry.`,
    );
  }
  const conflicts = [
    d.idempotent
      ? 'this idempotency key was already used, or its first request is still running'
      : '',
    d.kind === 'delete' && referenced.has(slice.entity)
      ? `other rows still refer to this ${slice.entity} (onDelete: restrict)`
      : '',
    ...(d.kind === 'create' || d.kind === 'update' ? (slice.unique ?? []) : []).map(
      (u) =>
        `another ${slice.entity} already has this ${u.fields.join(' and ')}` +
        `${u.ignoreCase ? ' (compared ignoring case)' : ''} (crud.duplicate)`,
    ),
    d.kind === 'restore'
      ? `a live ${slice.entity} now holds one of its unique values (crud.duplicate)`
      : '',
    (d.rules ?? []).length > 0
      ? `a business rule refuses it in the ${slice.entity}'s current state (crud.rule_violation: ${d.rules!.join(', ')})`
      : '',
  ].filter(Boolean);
  if (conflicts.length > 0) {
    const text = conflicts.join('; or ');
    responses['409'] = problemResponse(`${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
  }
  const unprocessable = [
    (d.request || d.kind === 'restore') && (slice.references ?? []).length > 0
      ? `a reference names no ${slice.references!.join(' or ')} the caller can see (crud.invalid_reference)`
      : '',
    (d.requestRules ?? []).length > 0
      ? `the request breaks a rule of the ${slice.entity} (crud.rule_violation: ${d.requestRules!.join(', ')})`
      : '',
    d.idempotent && options.idempotencyFingerprint !== false
      ? 'this idempotency key was already used for a different request: another method, path or body (idempotency.key_reused)'
      : '',
  ].filter(Boolean);
  if (unprocessable.length > 0) {
    const text = unprocessable.join('; or ');
    responses['422'] = problemResponse(`${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
  }

  const operation: Record<string, unknown> = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [slice.tag ?? slice.entity],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
  };
  describeAccess(operation, responses, d.access, slice.tenant === true);
  if (d.kind === 'list' && d.list?.deleted) describeDeletedAccess(operation, responses, d);
  const requestName = op.requestName;
  if (requestName) {
    operation.requestBody = {
      required: true,
      content: Object.fromEntries(
        (d.mediaTypes ?? ['application/json']).map((type) => [
          type,
          { schema: { $ref: dtoRef(requestName) } },
        ]),
      ),
    };
  }
  return operation;
}

/**
 * Builds the OpenAPI 3.1 document of an app from its slices' descriptions. Throws
 * `OpenApiDescriptionError` listing every problem (bad names, two operations on one route).
 *
 * @example
 * const document = buildOpenApiDocument([productSlice], { title: 'Shop API', auth: 'optional' });
 */
export function buildOpenApiDocument(
  slices: readonly SliceDescription[],
  options: OpenApiBuildOptions = {},
): OpenApiDocument {
  const problems = slices.flatMap((slice, i) => checkSlice(slice, i));
  if (problems.length > 0) throw new OpenApiDescriptionError(problems);

  const schemas: Record<string, unknown> = { [PROBLEM_SCHEMA]: problemDetailsSchema };
  const referenced = new Set(slices.flatMap((slice) => slice.references ?? []));
  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  const tags: string[] = [];
  let idempotent = false;
  let bearer = false;

  for (const slice of slices) {
    const dtoName = slice.dtoName ?? `${slice.entity}Dto`;
    schemas[dtoName] = toOpenApiSchema(slice.dto);
    const tag = slice.tag ?? slice.entity;
    if (!tags.includes(tag)) tags.push(tag);
    for (const description of slice.operations) {
      const op = resolveOperation(slice, description);
      const item = (paths[op.path] ??= {});
      if (item[op.method])
        problems.push(`${op.method.toUpperCase()} ${op.path} is described twice`);
      if (operationIds.has(op.operationId))
        problems.push(`operation id ${op.operationId} is used twice`);
      operationIds.add(op.operationId);
      if (op.onItem && !item.parameters) {
        item.parameters = [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: slice.idSchema ?? { type: 'string', format: 'uuid' },
          },
        ];
      }
      if (description.kind === 'list') {
        schemas[`${dtoName}Selection`] = selectionSchema(schemas[dtoName]);
        schemas[`${dtoName}PagedResponse`] = pagedResponseSchema(
          dtoRef(dtoName),
          dtoRef(`${dtoName}Selection`),
        );
      }
      if (op.requestName && description.request) {
        if (schemas[op.requestName])
          problems.push(`request schema ${op.requestName} is defined twice`);
        schemas[op.requestName] = toOpenApiSchema(description.request);
      }
      idempotent ||= description.idempotent === true;
      bearer ||=
        needsBearer(description.access, slice.tenant === true) ||
        needsBearer(description.list?.deletedAccess);
      item[op.method] = operationObject(slice, op, dtoName, options, referenced);
    }
  }
  if (problems.length > 0) throw new OpenApiDescriptionError(problems);

  const components: OpenApiDocument['components'] = { schemas };
  if (idempotent)
    components.parameters = { [IDEMPOTENCY_PARAMETER]: idempotencyParameter(options) };
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'API',
      version: options.version ?? '1.0.0',
      ...(options.description ? { description: options.description } : {}),
    },
    ...(options.servers ? { servers: options.servers } : {}),
    tags: tags.map((name) => ({ name })),
    paths,
    components,
  };
  if (bearer || (options.auth && options.auth !== 'none')) {
    components.securitySchemes = {
      [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    };
  }
  if (options.auth && options.auth !== 'none') {
    // An empty requirement object means "anonymous is fine too".
    document.security =
      options.auth === 'required' ? [{ [BEARER_SCHEME]: [] }] : [{}, { [BEARER_SCHEME]: [] }];
  }
  return document;
}
