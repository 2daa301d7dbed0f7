// The guard's own answers: 400 for a bad key, 409 for a duplicate, 422 for a reused key, as
// RFC 9457 problem+json whose `type` names the problem the way every runtime problem does.
import type { Response } from 'express';
import { PROBLEM_CONTENT_TYPE, type ProblemDetails } from '../http/problem.js';
import type { ResolvedIdempotencyOptions } from './options.js';

/** Which key rule failed, in the order the rules are checked. */
export type KeyRule = 'required' | 'structured-string' | 'utf-8' | 'max-length' | 'pattern';

/**
 * The `type` of each guard problem, in the runtime's `urn:slicekit:problem:<name>` form (as
 * `crud`, `list-query` and `database` problems); docs/idempotency.md documents each one under
 * "Problem types". The `code` member of the body says the same in the runtime's code form.
 */
export const IdempotencyProblemType = {
  /** 400: the key header is missing, malformed, not UTF-8, too long or off the pattern. */
  keyInvalid: 'urn:slicekit:problem:idempotency-key-invalid',
  /** 409: the key's first request is still in flight; retry after `Retry-After`. */
  inFlight: 'urn:slicekit:problem:idempotency-key-in-flight',
  /** 409: the key's first request completed (ConflictResponse mode). */
  completed: 'urn:slicekit:problem:idempotency-key-completed',
  /** 422: the key was first used for a different request. */
  reused: 'urn:slicekit:problem:idempotency-key-reused',
  /** 503 or 500: an app never prepared could not prepare itself on its first request. */
  notPrepared: 'urn:slicekit:problem:idempotency-not-prepared',
} as const;

export type IdempotencyProblemType =
  (typeof IdempotencyProblemType)[keyof typeof IdempotencyProblemType];

/** The `code` member beside each `type`. */
const CODES: Record<IdempotencyProblemType, string> = {
  [IdempotencyProblemType.keyInvalid]: 'idempotency.key_invalid',
  [IdempotencyProblemType.inFlight]: 'idempotency.in_flight',
  [IdempotencyProblemType.completed]: 'idempotency.completed',
  [IdempotencyProblemType.reused]: 'idempotency.key_reused',
  [IdempotencyProblemType.notPrepared]: 'idempotency.not_prepared',
};

/** Seconds a client should wait before retrying a key that is still in flight. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

function send(
  res: Response,
  options: ResolvedIdempotencyOptions,
  type: IdempotencyProblemType,
  fields: { title: string; status: number; detail: string; [member: string]: unknown },
): void {
  const { replacer, space } = options.jsonSerializerOptions;
  const problem: ProblemDetails = { type, ...fields, code: CODES[type] };
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
  send(res, options, IdempotencyProblemType.keyInvalid, {
    title: 'Bad Request',
    status: 400,
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
  const type = inFlight ? IdempotencyProblemType.inFlight : IdempotencyProblemType.completed;
  send(res, options, type, {
    title: 'Conflict',
    status: 409,
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
  send(res, options, IdempotencyProblemType.reused, {
    title: 'Unprocessable Content',
    status: 422,
    detail: `This ${header} was already used for a different request (method, path or body); send a new key for a new request.`,
    header,
    state: inFlight ? 'in-flight' : 'completed',
  });
}
