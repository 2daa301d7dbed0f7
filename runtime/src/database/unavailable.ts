// Telling a database that did not answer (a timeout, a broken or refused connection, a busy
// SQLite file) from a failed statement, and answering it with 503 + Retry-After instead of a 500.
import type { Request, Response } from 'express';
import { problemDetails, sendProblem, type ProblemDetails } from '../http/problem.js';
import { problemKinds } from '../http/problem-kinds.js';

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

// mysql2: its own timeouts and lost connections, and the server refusing or going away.
const MYSQL_CODES = new Set([
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CLIENT_INTERACTION_TIMEOUT',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_STATEMENT_TIMEOUT',
  'ER_QUERY_TIMEOUT',
]);

// PostgreSQL SQLSTATEs: a statement cancelled (statement_timeout), a lock not obtained
// (lock_timeout), too many connections, the server shutting down or starting up.
const POSTGRES_STATES = new Set(['57014', '55P03', '53300', '57P01', '57P02', '57P03']);

// node-postgres raises these without a code (Knex puts the statement and ' - ' before them).
const POSTGRES_MESSAGES = [
  'Query read timeout',
  'Connection terminated',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

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
  const code = typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || MYSQL_CODES.has(code) || POSTGRES_STATES.has(code)) return true;
    // PostgreSQL class 08: connection exceptions.
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    // better-sqlite3: the file stayed locked for the whole busy timeout (or waiting would deadlock).
    if (code.startsWith('SQLITE_BUSY')) return true;
  }
  // mysql2 marks errors that closed the connection as fatal (a SQL error is never fatal).
  if (error.fatal === true && error.sqlState === undefined) return true;
  const message = typeof error.message === 'string' ? error.message : '';
  return (
    code === undefined &&
    POSTGRES_MESSAGES.some((text) => message === text || message.endsWith(` - ${text}`))
  );
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
