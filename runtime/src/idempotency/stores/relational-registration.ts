// The handle through which the app reaches the store the guard constructs later, at start.
import type { StoreTimings } from '../store.js';
import type { RelationalIdempotencyStore } from './relational-store.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';

/** What the app can do with a registered relational store. */
export interface RelationalStoreHandle {
  /**
   * Deletes every expired row now, in bounded batches; answers how many. Rejects with
   * `idempotency_store_not_started` until the app has started (and so built) the store.
   */
  purgeExpired(): Promise<number>;
}

/**
 * A store factory for the guard plus a handle that reaches the store once the factory ran.
 * The factory runs only if this registration wins, so a losing one never opens a pool.
 */
export function lazyRelationalStore<S extends RelationalIdempotencyStore>(
  storeName: string,
  make: (timings: StoreTimings) => S,
): { factory: (timings: StoreTimings) => S; handle: RelationalStoreHandle } {
  let store: S | undefined;
  return {
    factory(timings) {
      store = make(timings);
      return store;
    },
    handle: {
      purgeExpired() {
        if (!store) {
          return Promise.reject(
            new IdempotencyStoreError(
              IdempotencyStoreErrorCode.notStarted,
              storeName,
              'purgeExpired() needs the app to have started the store',
            ),
          );
        }
        return store.purgeExpired();
      },
    },
  };
}
