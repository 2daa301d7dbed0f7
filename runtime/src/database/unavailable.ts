// Telling a database that did not answer (a timeout, a broken or refused connection, a busy
// SQLite file) from a failed statement, and answering it with 503 + Retry-After instead of a 500.
import type { Request, Response } from 'express';
import { problemDetails, sendProblem, type ProblemDetails, problemKinds } from '../http/index.js';
import { isDatabaseError } from '../sql/index.js';

/** The `code` of the problem a request answers with when the database is unavailable. */
export const DatabaseProblemCode = {
  /** 503: the database did not answer in time, refused or lost the connection, or was busy. */
  Unavailable: 'database.unavailable',
} as const;

export const DATABASE_UNAVAILABLE_TYPE = problemKinds['database.unavailable'].type;

/** Seconds a client is told to wait (`Retry-After`) before trying again. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

// Node socket errors: the server is down, unreachable, or the connection broke or timed out.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

interface ErrorFields {
  name?: unknown;
  code?: unknown;
  fatal?: unknown;
  sqlState?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function unavailableItself(error: ErrorFields): boolean {
  // Knex: no pooled connection within acquireConnectionTimeout, or a query's own .timeout().
  if (error.name === 'KnexTimeoutError') return true;
  if (typeof error.code === 'string' && NETWORK_CODES.has(error.code)) return true;
  // The database's own answers: a statement cancelled, a lock not obtained, the server going away.
  return isDatabaseError('unavailable', error);
}

/**
 * True when `error` (or its `cause`, or one of an `AggregateError`'s errors) says the database did
 * not answer in time, refused or lost the connection, or was too busy: a condition that passes on
 * its own, where a client should retry later, rather than a statement that failed.
 *
 * @example
 * if (isDatabaseUnavailable(error)) res.set('retry-after', '5').status(503);
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const fields = error as ErrorFields;
  if (unavailableItself(fields)) return true;
  if (Array.isArray(fields.errors)) {
    if (fields.errors.some((inner: unknown) => isDatabaseUnavailable(inner, depth + 1)))
      return true;
  }
  return fields.cause !== undefined && isDatabaseUnavailable(fields.cause, depth + 1);
}

/** The 503 problem of a request that met an unavailable database. */
export function databaseUnavailableProblem(instance?: string): ProblemDetails {
  return problemDetails(DatabaseProblemCode.Unavailable, {
    detail: 'the database did not answer in time; retry later',
    ...(instance ? { instance } : {}),
  });
}

/** Options of `answerDatabaseUnavailable`. */
export interface DatabaseUnavailableOptions {
  /** The `Retry-After` header, in seconds. @default 5 */
  retryAfterSeconds?: number;
}

/**
 * When `error` is an unavailable database (`isDatabaseUnavailable`), answers 503 problem+json with
 * `Retry-After` and returns true; otherwise leaves the response alone and returns false. The CRUD
 * routes, the list handler and a generated app's problem handler all answer this way.
 *
 * @example
 * } catch (error) {
 *   if (answerDatabaseUnavailable(error, req, res)) return;
 *   next(error);
 * }
 */
export function answerDatabaseUnavailable(
  error: unknown,
  req: Request,
  res: Response,
  options: DatabaseUnavailableOptions = {},
): boolean {
  if (res.headersSent || !isDatabaseUnavailable(error)) return false;
  res.set('retry-after', String(options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS));
  sendProblem(res, databaseUnavailableProblem(req.originalUrl));
  return true;
}
