// The shared relational store (not selectable on its own): the state machine of one key over a
// table with a unique storage key. PostgreSQL and MySQL supply only the few statements that
// differ; every decision (new, in flight, completed, expired, reclaim) is made here once.
import { randomUUID } from 'node:crypto';
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
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import type { ResolvedRelationalSettings } from './store-settings.js';

/** One row of the key table. Times are epoch milliseconds (UTC) in BIGINT columns. */
export interface StoredRow {
  readonly statusCode: number;
  readonly body: Buffer | null;
  readonly contentType: string;
  readonly createdAtMs: number;
  readonly expiresAtMs: number;
  readonly reservation: string;
}

/** `storage_key` is VARCHAR(255); the digest and its colon take 65 of those characters. */
export const MAX_RELATIONAL_PREFIX_LENGTH = 255 - 65;

/**
 * Losing a race costs one retry (the row vanished between our insert and read, or someone else
 * reclaimed first); a handful of attempts is plenty, and the bound keeps a pathological store
 * from spinning a request forever.
 */
const MAX_ATTEMPTS = 8;

export abstract class RelationalIdempotencyStore implements IdempotencyKeyStore {
  private purgeTimer: NodeJS.Timeout | undefined;
  private purging: Promise<number> | undefined;

  protected constructor(
    protected readonly storeName: string,
    protected readonly timings: StoreTimings,
    protected readonly settings: ResolvedRelationalSettings,
  ) {
    if (timings.cachePrefix.length > MAX_RELATIONAL_PREFIX_LENGTH) {
      throw new IdempotencyStoreError(
        IdempotencyStoreErrorCode.invalidSettings,
        storeName,
        `cachePrefix is ${timings.cachePrefix.length} characters; at most ` +
          `${MAX_RELATIONAL_PREFIX_LENGTH} fit the 255-character storage key`,
      );
    }
  }

  /**
   * Inserts `placeholder` unless the key exists, in ONE statement, and answers the row now stored
   * under the key: the placeholder itself when this call inserted it (same reservation token), the
   * other row otherwise, or `undefined` when the row that blocked the insert vanished before it
   * could be read (the caller retries).
   */
  protected abstract insertOrRead(
    key: string,
    placeholder: StoredRow,
  ): Promise<StoredRow | undefined>;
  /** Replaces an expired row whose token is still `oldReservation`; true when it did. */
  protected abstract reclaim(
    key: string,
    oldReservation: string,
    placeholder: StoredRow,
  ): Promise<boolean>;
  /** Writes `row` over the in-flight placeholder holding `reservation`; true when it did. */
  protected abstract complete(key: string, reservation: string, row: StoredRow): Promise<boolean>;
  /** Deletes the in-flight placeholder holding `reservation`, if it is still there. */
  protected abstract release(key: string, reservation: string): Promise<void>;
  /** Deletes at most `limit` rows expired at `nowMs`; answers how many. */
  protected abstract purgeBatch(nowMs: number, limit: number): Promise<number>;
  /** Creates the table and its index when missing. */
  protected abstract createTable(): Promise<void>;
  /** Closes the pool when the store opened it. */
  protected abstract closeConnections(): Promise<void>;

  async isKeyProcessed(keyInfo: IdempotentKeyInfo): Promise<KeyCheckResult> {
    const key = storageKey(this.timings.cachePrefix, keyInfo);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = Date.now();
      const reservation = randomUUID();
      const placeholder: StoredRow = {
        statusCode: IN_FLIGHT_STATUS,
        body: null,
        contentType: '',
        createdAtMs: now,
        expiresAtMs: now + this.timings.inFlightReservationTimeoutMs,
        reservation,
      };
      const row = await this.insertOrRead(key, placeholder);
      if (!row) continue;
      if (row.reservation === reservation) return { processed: false, reservation };
      // Expiry is judged from the timestamps at read time, never from a stored flag.
      if (row.expiresAtMs <= now) {
        // Two callers may both see the same expired row; the update is conditional on the old
        // token, so exactly one of them gets the key and the other re-reads the winner's row.
        if (await this.reclaim(key, row.reservation, placeholder)) {
          return { processed: false, reservation };
        }
        continue;
      }
      if (row.statusCode === IN_FLIGHT_STATUS) return { processed: true, response: null };
      return { processed: true, response: toCachedResponse(row) };
    }
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.contention,
      this.storeName,
      `gave up on key "${keyInfo.safeKey}" after ${MAX_ATTEMPTS} lost races`,
    );
  }

  async markKeyAsProcessed(
    keyInfo: IdempotentKeyInfo,
    response: CachedResponse,
    reservation: string,
  ): Promise<boolean> {
    const now = Date.now();
    return this.complete(storageKey(this.timings.cachePrefix, keyInfo), reservation, {
      statusCode: response.statusCode,
      body: response.body,
      contentType: response.contentType,
      createdAtMs: now,
      expiresAtMs: now + this.timings.expirationMs,
      reservation,
    });
  }

  async releaseReservation(keyInfo: IdempotentKeyInfo, reservation: string): Promise<void> {
    await this.release(storageKey(this.timings.cachePrefix, keyInfo), reservation);
  }

  /**
   * Deletes every row expired now, `purgeBatchSize` rows per statement so no statement holds many
   * locks for long. Answers how many rows it deleted. Concurrent calls share one run.
   */
  purgeExpired(): Promise<number> {
    this.purging ??= this.purgeAll().finally(() => {
      this.purging = undefined;
    });
    return this.purging;
  }

  private async purgeAll(): Promise<number> {
    const limit = this.settings.purgeBatchSize;
    let total = 0;
    for (;;) {
      const deleted = await this.purgeBatch(Date.now(), limit);
      total += deleted;
      if (deleted < limit) return total;
      // Let requests waiting for a pooled connection go first between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async start(): Promise<void> {
    if (this.settings.createTable) await this.createTable();
    if (this.settings.purgeIntervalMs > 0 && !this.purgeTimer) {
      this.purgeTimer = setInterval(() => {
        this.purgeExpired().then(
          (deleted) => {
            if (deleted > 0)
              this.settings.logger?.debug({ deleted }, 'purged expired idempotency keys');
          },
          (error: unknown) =>
            this.settings.logger?.warn(
              { err: safeError(error) },
              'purging expired idempotency keys failed',
            ),
        );
      }, this.settings.purgeIntervalMs);
      // A purge timer alone must not keep the process alive.
      this.purgeTimer.unref();
    }
  }

  async close(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
    await this.purging?.catch(() => undefined);
    await this.closeConnections();
  }
}

function toCachedResponse(row: StoredRow): CachedResponse {
  return {
    statusCode: row.statusCode,
    body: row.body,
    contentType: row.contentType,
    createdAt: new Date(row.createdAtMs),
    expiresAt: new Date(row.expiresAtMs),
  };
}
