// Bounded waiting for store operations: a dead or silent store must fail a request quickly,
// never hang it, whatever timeouts the driver (or a pool the application passed in) has.
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';

/**
 * Resolves or rejects like `work`, or rejects with an `idempotency_store_timeout` error after
 * `ms`. When `work` settles after the timeout, `onLate` receives its value so the caller can give
 * back what it acquired (a pooled connection) instead of leaking it.
 */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  store: string,
  what: string,
  onLate?: (value: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(
        new IdempotencyStoreError(
          IdempotencyStoreErrorCode.timeout,
          store,
          `${what} did not finish within ${ms} ms`,
        ),
      );
    }, ms);
    work.then(
      (value) => {
        if (timedOut) {
          onLate?.(value);
          return;
        }
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (timedOut) return;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** True for the timeout error `withTimeout` raises. */
export function isStoreTimeout(error: unknown): boolean {
  return error instanceof IdempotencyStoreError && error.code === IdempotencyStoreErrorCode.timeout;
}
