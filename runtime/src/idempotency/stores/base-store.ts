// The shared idempotency store (not selectable on its own): the claim loop, the state decisions
// and fenced completion of one key, made here once for the PostgreSQL, MySQL and Redis stores.
// A subclass supplies four atomic operations on its storage (see docs/stores.md, "Writing a store").
import { randomUUID } from 'node:crypto';
import { storageKey } from '../key-info.js';
import type {
  CachedResponse,
  IdempotencyKeyStore,
  IdempotentKeyInfo,
  KeyCheckResult,
  StoreTimings,
} from '../store.js';
import {
  inFlightRecord,
  RecordState,
  recordState,
  toCachedResponse,
  type NewRecord,
  type StoredRecord,
} from './record.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';

/**
 * Losing a race costs one retry (the record vanished between our insert and read, or someone
 * else took an expired record over first); a handful of attempts is plenty, and the bound keeps a
 * pathological store from spinning a request forever.
 */
const MAX_ATTEMPTS = 8;

export abstract class BaseIdempotencyStore implements IdempotencyKeyStore {
  protected constructor(
    /** Names the store in errors: "postgres", "mysql", "redis". */
    protected readonly storeName: string,
    protected readonly timings: StoreTimings,
  ) {}

  /**
   * Stores `placeholder` under `key` unless a record is there, in ONE atomic step, and answers
   * the record now under the key: `placeholder` itself (same token) when this call stored it, the
   * record that blocked it otherwise, or `undefined` when that record vanished before it could be
   * read (the claim loop asks again). The race it must close, callers A and B on a new key:
   *   A: insertIfAbsent -> stores A's placeholder, answers it: A runs the handler
   *   B: insertIfAbsent -> stores nothing, answers A's record: B is a duplicate
   * A read and a separate write would let both see the key absent and both run the handler.
   */
  protected abstract insertIfAbsent(
    key: string,
    placeholder: NewRecord,
  ): Promise<StoredRecord | undefined>;

  /**
   * Replaces `expired` with `placeholder` only while the record under `key` still carries
   * `expired.reservation` (a record gone by then may be replaced too); true when it wrote.
   *   A, B: insertIfAbsent -> both read the same expired record (token t)
   *   A: takeOverExpired(t) -> the record still carries t: A's placeholder replaces it, true
   *   B: takeOverExpired(t) -> the record carries A's token: nothing written, false; B asks again
   *      and reads A's reservation
   */
  protected abstract takeOverExpired(
    key: string,
    expired: StoredRecord,
    placeholder: NewRecord,
  ): Promise<boolean>;

  /**
   * Writes `response` over the in-flight placeholder of `reservation`, only while that very
   * placeholder is under `key`; true when it wrote.
   *   A reserves (token a); its handler outlives the in-flight timeout
   *   B takes the key over (token b) and runs the handler
   *   A: completeIfOwned(a) -> the record carries b: nothing written, false; A's late result
   *      never replaces B's reservation or B's response
   */
  protected abstract completeIfOwned(
    key: string,
    reservation: string,
    response: NewRecord,
  ): Promise<boolean>;

  /**
   * Deletes the in-flight placeholder of `reservation` if it is still under `key`.
   *   A reserves (token a), times out; B takes the key over (token b)
   *   A's handler fails: deleteIfOwned(a) -> the record carries b: B's reservation stays
   * A completed record is never deleted, even with its own token.
   */
  protected abstract deleteIfOwned(key: string, reservation: string): Promise<void>;

  async isKeyProcessed(keyInfo: IdempotentKeyInfo): Promise<KeyCheckResult> {
    const key = storageKey(this.timings.cachePrefix, keyInfo);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = Date.now();
      const reservation = randomUUID();
      const placeholder = inFlightRecord(
        reservation,
        now,
        this.timings.inFlightReservationTimeoutMs,
        keyInfo.fingerprint ?? null,
      );
      const current = await this.insertIfAbsent(key, placeholder);
      if (!current) continue;
      if (current.reservation === reservation) return { processed: false, reservation };
      const { fingerprint } = current;
      switch (recordState(current, now)) {
        case RecordState.inFlight:
          return { processed: true, response: null, fingerprint };
        case RecordState.completed:
          return { processed: true, response: toCachedResponse(current), fingerprint };
        case RecordState.expired:
          // Of several callers that read the same expired record, exactly one takes it over;
          // the others go round again and read the winner's reservation.
          if (await this.takeOverExpired(key, current, placeholder)) {
            return { processed: false, reservation };
          }
      }
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
    return this.completeIfOwned(storageKey(this.timings.cachePrefix, keyInfo), reservation, {
      reservation,
      statusCode: response.statusCode,
      body: response.body,
      contentType: response.contentType,
      headers: response.headers ?? [],
      createdAtMs: now,
      expiresAtMs: now + this.timings.expirationMs,
      // The reservation's fingerprint stays; stores that rewrite the whole record write it again.
      fingerprint: keyInfo.fingerprint ?? null,
    });
  }

  async releaseReservation(keyInfo: IdempotentKeyInfo, reservation: string): Promise<void> {
    await this.deleteIfOwned(storageKey(this.timings.cachePrefix, keyInfo), reservation);
  }
}
