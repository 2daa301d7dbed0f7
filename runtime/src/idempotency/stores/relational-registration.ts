// What the PostgreSQL and MySQL registrations share: the connection argument's two shapes, and
// the handle through which the app reaches the store the guard constructs later, at start.
import type { StoreTimings } from '../store.js';
import type { RelationalIdempotencyStore } from './relational-store.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import { resolveRelationalSettings, type RelationalStoreSettings } from './store-settings.js';

/** What the app can do with a registered relational store. */
export interface RelationalStoreHandle {
  /**
   * Deletes every expired row now, in bounded batches; answers how many. Rejects with
   * `idempotency_store_not_started` until the app has started (and so built) the store.
   */
  purgeExpired(): Promise<number>;
}

/** Settings with the connection inside, for when more than a connection must be given. */
export type WithConnection<C> = RelationalStoreSettings & { connection: C };

/** Splits `connection | { connection, ...settings }` and checks the settings at once. */
export function splitConnection<C>(
  store: string,
  argument: C | WithConnection<C>,
  isConnection: (value: unknown) => value is C,
): { connection: C; settings: RelationalStoreSettings } {
  if (isConnection(argument)) return { connection: argument, settings: {} };
  const { connection, ...settings } = argument as WithConnection<C>;
  if (!isConnection(connection)) {
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.invalidSettings,
      store,
      'connection must be a connection string or a pool',
    );
  }
  // Fail at registration on a bad table name or number, not on the first request.
  resolveRelationalSettings(store, settings);
  return { connection, settings };
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
