// Every kind of problem the runtime and a generated app answer with, declared once: its stable
// `code`, its `type` URI, the statuses it answers with, its own extension members and what it
// means. docs/problems.md documents each one (test/runtime/http/problem-kinds.test.ts checks it).

/** The base of every problem `type` the runtime gives: `urn:slicekit:problem:<name>`. */
export const PROBLEM_TYPE_PREFIX = 'urn:slicekit:problem:';

/** One kind of problem. */
export interface ProblemKind {
  /** The `type` member: a URI naming this kind, never changed once released. */
  readonly type: string;
  /** The statuses it answers with (most kinds have one), or any of a class for the generic ones. */
  readonly statuses: readonly number[] | '4xx' | '5xx';
  /** The members it adds beside the standard ones and `code`. */
  readonly extensions: readonly string[];
  /** What it means, in a line. */
  readonly summary: string;
}

/**
 * The problem kinds by `code`. A problem the runtime answers carries its kind's `type` and `code`;
 * a `ProblemError` thrown without a code is `http.client_error` (4xx) or `http.server_error`.
 */
export const problemKinds = {
  'http.malformed_path': {
    type: 'urn:slicekit:problem:malformed-path',
    statuses: [400],
    extensions: [],
    summary: 'a path segment is not valid percent-encoding',
  },
  'http.malformed_json': {
    type: 'urn:slicekit:problem:malformed-json',
    statuses: [400],
    extensions: [],
    summary: 'the body is not valid JSON',
  },
  'http.body_too_large': {
    type: 'urn:slicekit:problem:body-too-large',
    statuses: [413],
    extensions: [],
    summary: 'the body is larger than the JSON parser accepts',
  },
  'http.unsupported_media_type': {
    type: 'urn:slicekit:problem:unsupported-media-type',
    statuses: [415],
    extensions: ['contentType', 'accepted'],
    summary: 'a route that takes a JSON body was sent a body of another media type',
  },
  'http.unsupported_body': {
    type: 'urn:slicekit:problem:unsupported-body',
    statuses: [415],
    extensions: [],
    summary: "the body's charset is not UTF-8 or its content encoding cannot be read",
  },
  'http.not_found': {
    type: 'urn:slicekit:problem:route-not-found',
    statuses: [404],
    extensions: [],
    summary: 'no route has this path',
  },
  'http.method_not_allowed': {
    type: 'urn:slicekit:problem:method-not-allowed',
    statuses: [405],
    extensions: ['allowed'],
    summary: 'the path is known but takes other methods, listed in the Allow header',
  },
  'http.client_error': {
    type: 'urn:slicekit:problem:client-error',
    statuses: '4xx',
    extensions: [],
    summary: 'any other 4xx error Express, a middleware or a route raised without a code',
  },
  'http.malformed_request': {
    type: 'urn:slicekit:problem:malformed-request',
    statuses: [400, 408, 413, 431],
    extensions: [],
    summary: "Node's HTTP parser refused the request before Express saw it",
  },
  'http.internal_error': {
    type: 'urn:slicekit:problem:internal-error',
    statuses: [500],
    extensions: [],
    summary: 'an unexpected error; the server log has the details',
  },
  'http.server_error': {
    type: 'urn:slicekit:problem:server-error',
    statuses: '5xx',
    extensions: [],
    summary: 'any other 5xx a route raised as a problem without a code',
  },
  'auth.unauthorized': {
    type: 'urn:slicekit:problem:unauthorized',
    statuses: [401],
    extensions: [],
    summary: 'the bearer token is missing (on a route that needs one), malformed or not accepted',
  },
  'auth.forbidden': {
    type: 'urn:slicekit:problem:forbidden',
    statuses: [403],
    extensions: ['operation'],
    summary: 'the caller is authenticated but has none of the roles the operation allows',
  },
  'auth.tenant_required': {
    type: 'urn:slicekit:problem:tenant-required',
    statuses: [403],
    extensions: ['entity'],
    summary: "the entity's rows belong to tenants, and the caller's token names no tenant",
  },
  'auth.keys_unavailable': {
    type: 'urn:slicekit:problem:auth-keys-unavailable',
    statuses: [503],
    extensions: [],
    summary: 'the keys that verify bearer tokens (the JWKS) cannot be loaded',
  },
  'crud.invalid_request': {
    type: 'urn:slicekit:problem:invalid-request',
    statuses: [400],
    extensions: ['errors'],
    summary: 'the body or the path id is invalid; `errors` lists each field',
  },
  'crud.not_found': {
    type: 'urn:slicekit:problem:not-found',
    statuses: [404],
    extensions: ['id'],
    summary:
      "no row has this id (or it is another caller's row of an owned entity, or another tenant's)",
  },
  'crud.precondition_failed': {
    type: 'urn:slicekit:problem:precondition-failed',
    statuses: [412],
    extensions: ['id'],
    summary: 'the row changed since the version named in If-Match',
  },
  'crud.duplicate': {
    type: 'urn:slicekit:problem:duplicate',
    statuses: [409],
    extensions: ['fields'],
    summary: 'another row already holds these unique values',
  },
  'crud.invalid_reference': {
    type: 'urn:slicekit:problem:invalid-reference',
    statuses: [422],
    extensions: ['errors'],
    summary: 'a reference names no row the caller can see',
  },
  'crud.still_referenced': {
    type: 'urn:slicekit:problem:still-referenced',
    statuses: [409],
    extensions: ['referencedBy'],
    summary: 'the row is still referenced under `restrict`',
  },
  'crud.rule_violation': {
    type: 'urn:slicekit:problem:rule-violation',
    statuses: [409, 422],
    extensions: ['rule'],
    summary: 'a business rule of the entity refused the change (a `RuleViolation`)',
  },
  sequence_exhausted: {
    type: 'urn:slicekit:problem:sequence-exhausted',
    statuses: [409],
    extensions: ['sequence'],
    summary: 'a sequence reached its maximum; the create cannot succeed until it is raised',
  },
  'list_query.invalid': {
    type: 'urn:slicekit:problem:invalid-list-query',
    statuses: [400],
    extensions: ['reason', 'parameter'],
    summary: 'a list query parameter is malformed; `field` and `allowed` when they apply',
  },
  'list_query.cursor_invalid': {
    type: 'urn:slicekit:problem:invalid-list-cursor',
    statuses: [400],
    extensions: ['reason', 'parameter'],
    summary:
      'a `cursor` was altered, cut, made by another list or for another filter, search or order',
  },
  'database.unavailable': {
    type: 'urn:slicekit:problem:database-unavailable',
    statuses: [503],
    extensions: [],
    summary: 'the database did not answer in time, refused or lost the connection, or was busy',
  },
  'idempotency.key_invalid': {
    type: 'urn:slicekit:problem:idempotency-key-invalid',
    statuses: [400],
    extensions: ['header', 'rule'],
    summary: 'the key header is missing, malformed, not UTF-8, too long or off the pattern',
  },
  'idempotency.in_flight': {
    type: 'urn:slicekit:problem:idempotency-key-in-flight',
    statuses: [409],
    extensions: ['header', 'state'],
    summary: "the key's first request is still in flight; retry after Retry-After",
  },
  'idempotency.completed': {
    type: 'urn:slicekit:problem:idempotency-key-completed',
    statuses: [409],
    extensions: ['header', 'state'],
    summary: "the key's first request completed (ConflictResponse mode)",
  },
  'idempotency.key_reused': {
    type: 'urn:slicekit:problem:idempotency-key-reused',
    statuses: [422],
    extensions: ['header', 'state'],
    summary: 'the key was first used for a different request',
  },
  'idempotency.not_prepared': {
    type: 'urn:slicekit:problem:idempotency-not-prepared',
    statuses: [503, 500],
    extensions: [],
    summary: 'an app never prepared could not prepare its idempotency guard on its first request',
  },
  'health.unready': {
    type: 'urn:slicekit:problem:unready',
    statuses: [503],
    extensions: ['checks'],
    summary: 'a critical health check is down, or the process is shutting down',
  },
} as const satisfies Record<string, ProblemKind>;

/** The `code` of a problem kind the runtime declares. */
export type ProblemCode = keyof typeof problemKinds;

/** Whether `code` is the code of a declared problem kind. */
export function isProblemCode(code: unknown): code is ProblemCode {
  return typeof code === 'string' && Object.hasOwn(problemKinds, code);
}

/**
 * The code of a problem answered with `status` by something that named no code: a route's own
 * `ProblemError`, an http-errors error of a middleware.
 *
 * @example
 * genericProblemCode(429) // 'http.client_error'
 */
export function genericProblemCode(status: number): ProblemCode {
  return status >= 400 && status < 500 ? 'http.client_error' : 'http.server_error';
}

/**
 * Whether a problem of kind `code` may answer with `status`.
 *
 * @example
 * kindAnswersWith('crud.not_found', 404) // true
 */
export function kindAnswersWith(code: ProblemCode, status: number): boolean {
  const { statuses } = problemKinds[code] as ProblemKind;
  if (statuses === '4xx') return status >= 400 && status < 500;
  if (statuses === '5xx') return status >= 500 && status < 600;
  return statuses.includes(status);
}
