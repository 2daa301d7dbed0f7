// Errors as log fields without row data. A database error quotes the values it failed on in
// several places: Knex prefixes its message with the query, values inlined; mysql2 adds `sql`
// (values inlined) and `sqlMessage` ("Duplicate entry 'alice@example.com' for key ..."); pg adds
// `detail` ("Key (email)=(alice@example.com) already exists."). So a database error is logged by
// its codes and its placeholder statement only; other errors keep their message.
import { failedStatementOf } from './statements.js';

/** What `safeError` makes of an error: plain JSON, safe to hand to any logger. */
export interface SafeError {
  /** The error's class (`DatabaseError`, `SqliteError`, `TypeError`...). */
  type: string;
  /** The message; for a database error, a fixed sentence naming its code. */
  message: string;
  /** Driver code: `ER_DUP_ENTRY`, `23505`, `SQLITE_CONSTRAINT_UNIQUE`, `ECONNREFUSED`... */
  code?: string | number;
  /** MySQL's error number (1062). */
  errno?: number;
  /** MySQL's SQLSTATE ('23000'); PostgreSQL's is its `code`. */
  sqlState?: string;
  /** The statement that failed, with its placeholders, when `recordFailedStatements` saw it. */
  statement?: string;
  /** Stack frames; for a database error without its first line, which repeats the message. */
  stack?: string;
  /** The cause, made safe the same way. */
  cause?: unknown;
  /** An AggregateError's errors, made safe the same way. */
  errors?: unknown[];
  [field: string]: unknown;
}

// PostgreSQL error fields that name things (constraint, table...) and never hold a value.
const PG_NAMING_FIELDS = [
  'severity',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'routine',
] as const;

// Fields that carry values or SQL with values inlined; never copied from any error.
const VALUE_FIELDS = new Set([
  'message',
  'stack',
  'name',
  'cause',
  'errors',
  'sql',
  'sqlMessage',
  'bindings',
  'parameters',
  'detail',
  'where',
  'hint',
  'internalQuery',
  'query',
  'values',
]);

const MAX_DEPTH = 5;

type Fields = Record<string, unknown>;

/** Whether `error` came from a database driver or from Knex running a query. */
export function isDatabaseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Fields;
  if (failedStatementOf(error) !== undefined) return true;
  if ('sqlState' in e || 'sqlMessage' in e || 'sql' in e || 'bindings' in e) return true;
  const code = e.code;
  if (e.name === 'SqliteError' || (typeof code === 'string' && code.startsWith('SQLITE_'))) {
    return true;
  }
  // pg's DatabaseError: a severity beside a five-character SQLSTATE.
  return typeof e.severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

function typeOf(error: Fields): string {
  const constructorName = (error.constructor as { name?: unknown } | undefined)?.name;
  if (typeof constructorName === 'string' && !['Object', 'Error'].includes(constructorName)) {
    return constructorName;
  }
  return typeof error.name === 'string' && error.name ? error.name : 'Error';
}

function framesOf(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? frames.join('\n') : undefined;
}

function isErrorLike(value: unknown): value is Fields {
  if (value instanceof Error) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Fields).message === 'string' &&
    (typeof (value as Fields).stack === 'string' || isDatabaseError(value))
  );
}

function databaseError(error: Fields, depth: number): SafeError {
  const safe: SafeError = { type: typeOf(error), message: '' };
  if (typeof error.code === 'string' || typeof error.code === 'number') safe.code = error.code;
  if (typeof error.errno === 'number') safe.errno = error.errno;
  if (typeof error.sqlState === 'string') safe.sqlState = error.sqlState;
  for (const field of PG_NAMING_FIELDS) {
    if (typeof error[field] === 'string') safe[field] = error[field];
  }
  // A Knex timeout carries the statement itself (placeholders) and writes its own message.
  const knexTimeout = error.name === 'KnexTimeoutError';
  const statement =
    failedStatementOf(error) ?? (knexTimeout && typeof error.sql === 'string' ? error.sql : '');
  if (statement) safe.statement = statement;
  safe.message =
    knexTimeout && typeof error.message === 'string'
      ? error.message
      : `database error ${String(safe.code ?? safe.sqlState ?? '')}`.trim() +
        ' (the driver message is left out: it may quote row values)';
  const stack = framesOf(error.stack);
  if (stack) safe.stack = stack;
  return withNested(safe, error, depth);
}

function otherError(error: Fields, depth: number): SafeError {
  const safe: SafeError = {
    type: typeOf(error),
    message: typeof error.message === 'string' ? error.message : String(error.message),
  };
  for (const [key, value] of Object.entries(error)) {
    if (VALUE_FIELDS.has(key)) continue;
    if (['string', 'number', 'boolean'].includes(typeof value)) safe[key] = value;
  }
  if (typeof error.stack === 'string') safe.stack = error.stack;
  return withNested(safe, error, depth);
}

function withNested(safe: SafeError, error: Fields, depth: number): SafeError {
  if (error.cause !== undefined) safe.cause = toSafe(error.cause, depth + 1);
  if (Array.isArray(error.errors)) safe.errors = error.errors.map((e) => toSafe(e, depth + 1));
  return safe;
}

function toSafe(value: unknown, depth: number): unknown {
  if (!isErrorLike(value)) return value;
  if (depth >= MAX_DEPTH) return { type: typeOf(value), message: '(nested too deep)' };
  return isDatabaseError(value) ? databaseError(value, depth) : otherError(value, depth);
}

/**
 * `error` as plain log fields that never carry row data: a database error (Knex, pg, mysql2,
 * better-sqlite3) becomes its type, codes (`code`, `errno`, `sqlState`, and PostgreSQL's
 * constraint, table and column names), the failed statement with placeholders and its stack
 * frames; other errors keep type, message, stack and their simple fields. Causes and an
 * AggregateError's errors are made safe too; anything that is not an error is answered as is.
 * Usable as pino's `err` serializer, and by the runtime's own log calls.
 *
 * @example
 * logger.error({ err: safeError(error) }, 'list query failed');
 */
export function safeError(error: unknown): unknown {
  return toSafe(error, 0);
}
