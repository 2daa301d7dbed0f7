// Retrying work the database aborted to break a deadlock or a serialization conflict: the
// transaction did nothing, and running it again usually succeeds at once.
import type { Knex } from 'knex';
import { isDatabaseError } from '../sql/index.js';

interface ErrorFields {
  cause?: unknown;
}

/**
 * True when `error` (or its `cause`) is the database aborting a transaction so that another can
 * go on: MySQL/MariaDB `ER_LOCK_DEADLOCK` (1213), PostgreSQL `40001` (serialization failure) and
 * `40P01` (deadlock detected), SQLite `SQLITE_BUSY_SNAPSHOT` (a WAL snapshot too old to write).
 * The whole transaction was rolled back, so running it again from the start is safe.
 *
 * A plain `SQLITE_BUSY` is not one: SQLite answers it after its busy timeout has already been
 * waited out, and better-sqlite3 waits on the event loop's thread, so it is answered as an
 * unavailable database (503 with `Retry-After`) instead of waited for again.
 */
export function isTransactionConflict(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  if (isDatabaseError('conflict', error)) return true;
  const { cause } = error as ErrorFields;
  return cause !== undefined && isTransactionConflict(cause, depth + 1);
}

/** Options of `retryOnConflict` and `transactionWithRetry`. */
export interface ConflictRetryOptions {
  /** Attempts in all, the first included. @default 5 */
  attempts?: number;
  /**
   * Ceiling of the first pause, in milliseconds; each retry doubles it. Each pause is a random
   * time up to the ceiling (full jitter), so the transactions that collided do not collide again.
   * @default 25
   */
  backoffMs?: number;
  /** Called before each retry with the conflict and the attempt that failed (1-based). */
  onRetry?: (error: unknown, attempt: number) => void;
}

export const conflictRetryDefaults = { attempts: 5, backoffMs: 25 } as const;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work`, and runs it again (up to `attempts` times in all, with jittered exponential
 * pauses) while it fails with a deadlock or serialization conflict (`isTransactionConflict`).
 * Any other failure, and the conflict of the last attempt, is thrown as it is. `work` must be
 * safe to repeat: a whole transaction, or a single statement.
 *
 * @example
 * const deleted = await retryOnConflict(() => knex('products').where({ id }).delete());
 */
export async function retryOnConflict<T>(
  work: () => Promise<T>,
  options: ConflictRetryOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? conflictRetryDefaults.attempts);
  const backoffMs = options.backoffMs ?? conflictRetryDefaults.backoffMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      options.onRetry?.(error, attempt);
      await sleep(Math.random() * backoffMs * 2 ** (attempt - 1));
    }
  }
}

/**
 * `knex.transaction(work)`, run again from the start when the database aborts it as a deadlock or
 * a serialization failure (see `retryOnConflict`). Inside a transaction already (`knex` is a
 * `trx`) it runs `work` once in a savepoint: the conflict aborted the outer transaction too, so
 * only its owner can retry it.
 *
 * @example
 * const row = await transactionWithRetry(knex, async (trx) => {
 *   await trx('products').insert(row);
 *   await recordEvents(trx, createdEvents(productEvents, row));
 *   return row;
 * });
 */
export function transactionWithRetry<T>(
  knex: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
  options: ConflictRetryOptions = {},
): Promise<T> {
  if ((knex as { isTransaction?: boolean }).isTransaction) return knex.transaction(work);
  return retryOnConflict(() => knex.transaction(work), options);
}
