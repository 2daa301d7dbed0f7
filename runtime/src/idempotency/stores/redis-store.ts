// The Redis idempotency store on node-redis v5: native set-if-absent for the reservation, native
// time-to-live for expiry, Lua for every check-then-write. One round trip per operation.
import { createClient, RESP_TYPES, type RedisArgument } from 'redis';
import { safeError } from '../../logging/index.js';
import type { StoreTimings } from '../store.js';
import { BaseIdempotencyStore } from './base-store.js';
import type { NewRecord, StoredRecord } from './record.js';
import { decodeRecord, encodeRecord, recordHead } from './redis-record.js';
import { completeScript, reclaimScript, releaseScript, type LuaScript } from './redis-scripts.js';
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

export class RedisIdempotencyStore extends BaseIdempotencyStore {
  private readonly client: RedisCommandClient;
  private readonly owned: ReturnType<typeof createClient> | undefined;
  private readonly timeoutMs: number;
  private readonly logger: StoreLogger | undefined;

  constructor(
    connection: RedisConnection,
    settings: DistributedStoreSettings,
    timings: StoreTimings,
  ) {
    super('redis', timings);
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

  /**
   * `SET NX PX ... GET` (Redis 7+): set-if-absent and read what blocked it, in one atomic command.
   *   A: SET k <A's placeholder> NX PX GET -> nil: A holds k
   *   B: SET k <B's placeholder> NX PX GET -> A's record; nothing written
   * The in-flight timeout is the key's own time-to-live: a crashed holder frees it by itself.
   */
  protected async insertIfAbsent(key: string, placeholder: NewRecord): Promise<StoredRecord> {
    const existing = await this.send<Buffer | null>('reserve a key', [
      'SET',
      key,
      encodeRecord(placeholder),
      'NX',
      'PX',
      String(this.timings.inFlightReservationTimeoutMs),
      'GET',
    ]);
    return existing === null ? placeholder : decodeRecord(existing);
  }

  /**
   * Lua, comparing the token read with the stored one. The time-to-live normally removes an
   * expired entry first; this covers clock skew between the app and Redis.
   *   A, B: SET NX GET -> both read the same expired record (token t)
   *   A: script -> the value still starts with t: A's placeholder replaces it, 1
   *   B: script -> the value starts with A's token: 0; B asks again and reads A's reservation
   */
  protected async takeOverExpired(
    key: string,
    expired: StoredRecord,
    placeholder: NewRecord,
  ): Promise<boolean> {
    const taken = await this.run('reclaim an expired key', reclaimScript, key, [
      expired.reservation,
      encodeRecord(placeholder),
      String(this.timings.inFlightReservationTimeoutMs),
    ]);
    return taken === 1;
  }

  /**
   * Lua, comparing the value's head with `<our token>102`, then SET with the expiration as PX:
   *   A reserves (token a), times out; its key expires and B reserves it (token b)
   *   A: script -> the head is b's: 0, B's reservation and result stay
   */
  protected async completeIfOwned(
    key: string,
    reservation: string,
    record: NewRecord,
  ): Promise<boolean> {
    const written = await this.run('store a response', completeScript, key, [
      recordHead(reservation),
      encodeRecord(record),
      String(this.timings.expirationMs),
    ]);
    return written === 1;
  }

  /**
   * Lua, comparing the value's head with `<our token>102`, then DEL:
   *   A reserves (token a), times out; B reserves the key (token b)
   *   A's handler fails: script -> the head is b's: 0, B's reservation stays
   */
  protected async deleteIfOwned(key: string, reservation: string): Promise<void> {
    await this.run('release a reservation', releaseScript, key, [recordHead(reservation)]);
  }

  /** One PING within the operation timeout: resolves while Redis answers (a readiness check). */
  async ping(): Promise<void> {
    await this.send('answer a ping', ['PING']);
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
