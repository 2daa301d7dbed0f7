// @slicekit/runtime/idempotency/redis: the Redis idempotency store for apps running several
// instances. Needs the optional peer dependency `redis` (node-redis v5) and Redis 7 or newer.
import { addIdempotentKeyWithStore } from '../index.js';
import { RedisIdempotencyStore, type RedisConnection } from './redis-store.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import { resolveDistributedSettings, type DistributedStoreSettings } from './store-settings.js';

export type { RedisCommandClient, RedisConnection } from './redis-store.js';
export type { DistributedStoreSettings, StoreLogger } from './store-settings.js';
export { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';

/** A `redis://` URL or node-redis v5 client, or settings carrying one as `connection`. */
export type RedisStoreConnection =
  RedisConnection | (DistributedStoreSettings & { connection: RedisConnection });

type App = Parameters<typeof addIdempotentKeyWithStore>[0];
type Configure = Parameters<typeof addIdempotentKeyWithStore>[2];

function isConnection(value: unknown): value is RedisConnection {
  const client = value as { sendCommand?: unknown } | null;
  return (
    typeof value === 'string' ||
    (typeof client === 'object' && client !== null && typeof client.sendCommand === 'function')
  );
}

/** What the app can do with a registered Redis store. */
export interface RedisStoreHandle {
  /**
   * One PING within the store's operation timeout: resolves while Redis answers, for a readiness
   * check. Rejects with `idempotency_store_not_started` until the app has started the store.
   */
  ping(): Promise<void>;
}

/**
 * Registers the idempotency guard on a Redis store shared by every instance of the app. Keys
 * live under the guard's `cachePrefix`; their expiry is Redis's own time-to-live, so nothing
 * needs purging. A client you pass stays yours: the store connects it if needed, never closes it.
 *
 * @example
 * addIdempotencyWithRedisStore(app, 'redis://cache:6379', (options) => {
 *   options.cachePrefix = 'orders-api';
 * });
 */
export function addIdempotencyWithRedisStore(
  app: App,
  connection: RedisStoreConnection,
  configure?: Configure,
): RedisStoreHandle {
  let client: RedisConnection;
  let settings: DistributedStoreSettings = {};
  if (isConnection(connection)) {
    client = connection;
  } else {
    const { connection: inner, ...rest } = connection;
    if (!isConnection(inner)) {
      throw new IdempotencyStoreError(
        IdempotencyStoreErrorCode.invalidSettings,
        'redis',
        'connection must be a redis:// URL or a node-redis client',
      );
    }
    client = inner;
    settings = rest;
  }
  resolveDistributedSettings('redis', settings);
  // Built only if this registration wins, when the app starts; the handle reaches it then.
  let store: RedisIdempotencyStore | undefined;
  addIdempotentKeyWithStore(
    app,
    (timings) => (store = new RedisIdempotencyStore(client, settings, timings)),
    configure,
  );
  return {
    ping() {
      if (store) return store.ping();
      return Promise.reject(
        new IdempotencyStoreError(
          IdempotencyStoreErrorCode.notStarted,
          'redis',
          'ping() needs the app to have started the store',
        ),
      );
    },
  };
}
