// The Redis idempotency store on node-redis v5: native set-if-absent for the reservation, native
// time-to-live for expiry, Lua for every check-then-write. One round trip per operation.
import { randomUUID } from 'node:crypto';
import { createClient, RESP_TYPES, type RedisArgument } from 'redis';
import { safeError } from '../../logging/safe-error.js';
import {
  IN_FLIGHT_STATUS,
  storageKey,
  type CachedResponse,
  type IdempotencyKeyStore,
  type IdempotentKeyInfo,
  type KeyCheckResult,
  type StoreTimings,
} from '../store.js';
import { decodeRecord, encodeRecord, recordHead, type RedisRecord } from './redis-record.js';
import { completeScript, reclaimScript, releaseScript, type LuaScript } from './redis-scripts.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import {
  resolveDistributedSettings,
  type DistributedStoreSettings,
  type StoreLogger,
} from './store-settings.js';
import { withTimeout } from './store-timeout.js';

/**
 * What the store needs of a Redis client: any node-redis v5 client (`createClient()`) fits.
 * Kept narrow so the application can pass the client it already has.
 */
export interface RedisCommandClient {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  sendCommand<T = unknown>(
    args: ReadonlyArray<RedisArgument>,
    options?: { typeMapping?: Record<number, unknown>; timeout?: number },
  ): Promise<T>;
}

/** A `redis://` URL, or a node-redis v5 client the application already has (never closed). */
export type RedisConnection = string | RedisCommandClient;

/** Bulk strings come back as Buffers: bodies are bytes, not UTF-8 text. */
const BUFFERS = { [RESP_TYPES.BLOB_STRING]: Buffer };
const MAX_ATTEMPTS = 8;

export class RedisIdempotencyStore implements IdempotencyKeyStore {
  private readonly client: RedisCommandClient;
  private readonly owned: ReturnType<typeof createClient> | undefined;
  private readonly timeoutMs: number;
  private readonly logger: StoreLogger | undefined;

  constructor(
    connection: RedisConnection,
    settings: DistributedStoreSettings,
    private readonly timings: StoreTimings,
  ) {
    const resolved = resolveDistributedSettings('redis', settings);
    this.timeoutMs = resolved.operationTimeoutMs;
    this.logger = resolved.logger;
    if (typeof connection === 'string') {
      this.owned = createOwnedClient(connection, resolved.connectTimeoutMs, this.logger);
      this.client = this.owned;
    } else {
      this.client = connection;
    }
  }

  private send<T>(what: string, args: RedisArgument[]): Promise<T> {
    // The command timeout frees the client's queue; the outer one bounds anything else.
    const sent = this.client.sendCommand<T>(args, {
      typeMapping: BUFFERS,
      timeout: this.timeoutMs,
    });
    return withTimeout(sent, this.timeoutMs + 50, 'redis', what);
  }

  /** EVALSHA, falling back to EVAL once when the server's script cache does not have it yet. */
  private async run(
    what: string,
    lua: LuaScript,
    key: string,
    args: RedisArgument[],
  ): Promise<number> {
    try {
      return await this.send<number>(what, ['EVALSHA', lua.sha1, '1', key, ...args]);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return this.send<number>(what, ['EVAL', lua.source, '1', key, ...args]);
    }
  }

  async isKeyProcessed(keyInfo: IdempotentKeyInfo): Promise<KeyCheckResult> {
    const key = storageKey(this.timings.cachePrefix, keyInfo);
    const ttl = String(this.timings.inFlightReservationTimeoutMs);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = Date.now();
      const reservation = randomUUID();
      const placeholder = encodeRecord({
        reservation,
        statusCode: IN_FLIGHT_STATUS,
        contentType: '',
        createdAtMs: now,
        expiresAtMs: now + this.timings.inFlightReservationTimeoutMs,
        body: null,
      });
      // SET NX GET (Redis 7+): set-if-absent and read-what-blocked-it in one atomic command.
      //   A: SET k A NX PX GET -> nil (A now holds k)
      //   B: SET k B NX PX GET -> A's record (nothing written)
      // The in-flight timeout is the key's own time-to-live: a crashed holder frees it by itself.
      const existing = await this.send<Buffer | null>('reserve a key', [
        'SET',
        key,
        placeholder,
        'NX',
        'PX',
        ttl,
        'GET',
      ]);
      if (existing === null) return { processed: false, reservation };
      const record = decodeRecord(existing);
      // The time-to-live normally removes an expired entry first; this covers clock skew
      // between the app and Redis, atomically, on the token that was read.
      if (record.expiresAtMs !== null && record.expiresAtMs <= now) {
        const taken = await this.run('reclaim an expired key', reclaimScript, key, [
          record.reservation,
          placeholder,
          ttl,
        ]);
        if (taken === 1) return { processed: false, reservation };
        continue;
      }
      if (record.statusCode === IN_FLIGHT_STATUS) return { processed: true, response: null };
      return { processed: true, response: toCachedResponse(record) };
    }
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.contention,
      'redis',
      `gave up on key "${keyInfo.safeKey}" after ${MAX_ATTEMPTS} lost races`,
    );
  }

  async markKeyAsProcessed(
    keyInfo: IdempotentKeyInfo,
    response: CachedResponse,
    reservation: string,
  ): Promise<boolean> {
    const now = Date.now();
    const value = encodeRecord({
      reservation,
      statusCode: response.statusCode,
      contentType: response.contentType,
      createdAtMs: now,
      expiresAtMs: now + this.timings.expirationMs,
      body: response.body,
    });
    const key = storageKey(this.timings.cachePrefix, keyInfo);
    const written = await this.run('store a response', completeScript, key, [
      recordHead(reservation),
      value,
      String(this.timings.expirationMs),
    ]);
    return written === 1;
  }

  async releaseReservation(keyInfo: IdempotentKeyInfo, reservation: string): Promise<void> {
    const key = storageKey(this.timings.cachePrefix, keyInfo);
    await this.run('release a reservation', releaseScript, key, [recordHead(reservation)]);
  }

  async start(): Promise<void> {
    if (this.client.isOpen) return;
    try {
      await withTimeout(this.client.connect(), this.timeoutMs, 'redis', 'connecting');
    } catch (error) {
      // The failed start is final for this instance: stop our client's reconnect loop.
      if (this.owned?.isOpen) this.owned.destroy();
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.owned?.isOpen) await this.owned.close();
  }
}

/**
 * The client the store opens from a URL: bounded connect time, and reconnection forever with a
 * capped back-off, so the same process recovers by itself once Redis is back.
 */
function createOwnedClient(url: string, connectTimeoutMs: number, logger: StoreLogger | undefined) {
  const client = createClient({
    url,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 5), 1000),
    },
  });
  let down = false;
  // Without an 'error' listener node-redis errors would crash the process; log once per outage.
  client.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    logger?.warn(
      { err: safeError(error) },
      'redis idempotency store lost its connection; reconnecting',
    );
  });
  client.on('ready', () => {
    if (down) logger?.info('redis idempotency store reconnected');
    down = false;
  });
  return client;
}

function toCachedResponse(record: RedisRecord): CachedResponse {
  return {
    statusCode: record.statusCode,
    body: record.body,
    contentType: record.contentType,
    createdAt: new Date(record.createdAtMs),
    expiresAt: record.expiresAtMs === null ? null : new Date(record.expiresAtMs),
  };
}
