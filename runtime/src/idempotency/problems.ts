// The guard's own answers: 400 for a bad key, 409 for a duplicate, 422 for a reused key, as
// RFC 9457 problem+json of the kinds declared in http/problem-kinds.ts, with the members every
// runtime problem has (`type`, `title`, `status`, `detail`, `instance`, `code`) and their own.
import type { Request, Response } from 'express';
import {
  PROBLEM_CONTENT_TYPE,
  problemDetails,
  sendProblem,
  type ProblemMembers,
  problemKinds,
  type ProblemCode,
} from '../http/index.js';
import type { ResolvedIdempotencyOptions } from './options.js';

/** Which key rule failed, in the order the rules are checked. */
export type KeyRule = 'required' | 'structured-string' | 'utf-8' | 'max-length' | 'pattern';

/**
 * The `type` of each guard problem, in the runtime's `urn:slicekit:problem:<name>` form, from the
 * declared problem kinds; docs/problems.md and docs/idempotency.md ("Problem types") document
 * each one. The `code` member of the body says the same in the runtime's code form.
 */
export const IdempotencyProblemType = {
  /** 400: the key header is missing, malformed, not UTF-8, too long or off the pattern. */
  keyInvalid: problemKinds['idempotency.key_invalid'].type,
  /** 409: the key's first request is still in flight; retry after `Retry-After`. */
  inFlight: problemKinds['idempotency.in_flight'].type,
  /** 409: the key's first request completed (ConflictResponse mode). */
  completed: problemKinds['idempotency.completed'].type,
  /** 422: the key was first used for a different request. */
  reused: problemKinds['idempotency.key_reused'].type,
  /** 503 or 500: an app never prepared could not prepare itself on its first request. */
  notPrepared: problemKinds['idempotency.not_prepared'].type,
} as const;

export type IdempotencyProblemType =
  (typeof IdempotencyProblemType)[keyof typeof IdempotencyProblemType];

/** Seconds a client should wait before retrying a key that is still in flight. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

// The options' serializer (replacer, indentation) writes the body, as it writes replayed ones.
function send(
  res: Response,
  options: ResolvedIdempotencyOptions,
  code: ProblemCode,
  members: ProblemMembers,
): void {
  const { replacer, space } = options.jsonSerializerOptions;
  const instance = (res.req as Request | undefined)?.originalUrl;
  const problem = problemDetails(code, { ...(instance ? { instance } : {}), ...members });
  const body = JSON.stringify(problem, replacer as (key: string, value: unknown) => unknown, space);
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

/** 400: the key header is missing or blank, too long, or does not match the pattern. */
export function sendKeyProblem(
  res: Response,
  options: ResolvedIdempotencyOptions,
  rule: KeyRule,
): void {
  const header = options.idempotencyHeaderKey;
  const detail = {
    required: `The ${header} header is required and must not be blank.`,
    'structured-string': `The ${header} header opens with a quote but is not a Structured Field string (RFC 9651): printable ASCII between double quotes, with \\" and \\\\ as the only escapes, and no parameters.`,
    'utf-8': `The ${header} header is not valid UTF-8.`,
    'max-length': `The ${header} header must be at most ${options.maxIdempotencyKeyLength} bytes long (UTF-8, as sent).`,
    pattern: `The ${header} header does not match the required pattern ${options.idempotencyKeyPattern}.`,
  }[rule];
  send(res, options, 'idempotency.key_invalid', {
    detail,
    header,
    rule,
  });
}

/**
 * 409: a duplicate. While the first request is still in flight the answer carries
 * `Retry-After`, in both conflict modes, since there is nothing to replay yet.
 */
export function sendConflict(
  res: Response,
  options: ResolvedIdempotencyOptions,
  inFlight: boolean,
): void {
  const header = options.idempotencyHeaderKey;
  if (inFlight) res.setHeader('Retry-After', String(IN_FLIGHT_RETRY_AFTER_SECONDS));
  send(res, options, inFlight ? 'idempotency.in_flight' : 'idempotency.completed', {
    detail: inFlight
      ? `A request with this ${header} is still being processed; retry later.`
      : `A request with this ${header} has already been processed.`,
    header,
    state: inFlight ? 'in-flight' : 'completed',
  });
}

/**
 * 422: the key was first used for a different request (its fingerprint differs), in either
 * conflict mode and whether that request is still in flight or completed.
 */
export function sendFingerprintMismatch(
  res: Response,
  options: ResolvedIdempotencyOptions,
  inFlight: boolean,
): void {
  const header = options.idempotencyHeaderKey;
  send(res, options, 'idempotency.key_reused', {
    detail: `This ${header} was already used for a different request (method, path or body); send a new key for a new request.`,
    header,
    state: inFlight ? 'in-flight' : 'completed',
  });
}

/** 503 with `Retry-After` when the store did not start (it may come up), 500 when misconfigured. */
export function sendNotPrepared(res: Response, misconfigured: boolean): void {
  if (!misconfigured) res.setHeader('Retry-After', '1');
  const detail = 'the idempotency guard could not be prepared; see the server log';
  sendProblem(
    res,
    problemDetails('idempotency.not_prepared', { status: misconfigured ? 500 : 503, detail }),
  );
}
