// The idempotency store contract: what the guard asks of every store (memory, PostgreSQL, MySQL,
// Redis, or one the application writes), and the shared helpers that keep stores consistent.

/** Status code of the in-flight sentinel every shipped store uses for a reservation. */
export const IN_FLIGHT_STATUS = 102;

/** One recorded response header: its name and one value, exactly as the handler set it. */
export type ResponseHeader = readonly [name: string, value: string];

/** A response as a store round-trips it. Every member is required on construction. */
export interface CachedResponse {
  /** Original status code, replayed verbatim; 102 is reserved for the in-flight sentinel. */
  readonly statusCode: number;
  /** The response body bytes exactly as sent; `null` for a body-less response. */
  readonly body: Buffer | null;
  /** Original content type; the guard records `application/json` when the response set none. */
  readonly contentType: string;
  /**
   * The response's headers named in `replayedHeaders` (`Location`, `ETag`...), in that order, one
   * pair per value; a store gives them back in the same order with the same strings. Empty when
   * none was set.
   */
  readonly headers: readonly ResponseHeader[];
  /** When the entry was written (UTC). */
  readonly createdAt: Date;
  /** When validity ends; `null` means no expiry. */
  readonly expiresAt: Date | null;
}

/** True once a non-null `expiresAt` has passed. Computed at read time, never trusted from storage. */
export function isExpired(
  response: Pick<CachedResponse, 'expiresAt'>,
  now: number = Date.now(),
): boolean {
  return response.expiresAt !== null && response.expiresAt.getTime() <= now;
}

/** What a store receives: the request's key, route, method and caller scope. */
export interface IdempotentKeyInfo {
  /** Raw header value; `null` when the header is absent. Free-form caller input. */
  readonly idempotentKey: string | null;
  /** Full route template (mount path + route path), upper-cased. */
  readonly endpoint: string;
  /** HTTP method, upper-cased. */
  readonly method: string;
  /** Caller scope; empty for an unscoped anonymous caller. */
  readonly scope: string;
  /** `<scope>:<METHOD>:<ENDPOINT>:<key>`: the value stores hash and store under. */
  readonly compositeKey: string;
  /** The key with CR, LF, U+2028, U+2029 and every other control character removed: logs only. */
  readonly safeKey: string;
  /**
   * The request's fingerprint (by default the hex SHA-256 of method, path and canonical body);
   * `null` when fingerprinting is off. A store keeps it with the reservation and the response.
   */
  readonly fingerprint: string | null;
}

/**
 * The answer to `isKeyProcessed`.
 * - `{ processed: false, reservation }`: the key was absent (or its reservation had timed out) and
 *   the store has ALREADY recorded it as in flight, in the same indivisible step. `reservation` is
 *   the token that fences this caller's completion or release.
 * - `{ processed: true, response: null, fingerprint }`: another caller holds a live reservation.
 * - `{ processed: true, response, fingerprint }`: a completed, unexpired response.
 *
 * `fingerprint` is the one stored with the entry (the first request's), or `null` when none was
 * stored (fingerprinting off, or an entry written before the store kept fingerprints).
 */
export type KeyCheckResult =
  | { readonly processed: false; readonly reservation: string }
  | {
      readonly processed: true;
      readonly response: CachedResponse | null;
      readonly fingerprint: string | null;
    };

/** Timing a store needs, taken from the resolved guard options. */
export interface StoreTimings {
  /** Absolute lifetime of a completed response, in milliseconds. */
  readonly expirationMs: number;
  /** How long a reservation blocks retries, in milliseconds. */
  readonly inFlightReservationTimeoutMs: number;
  /** Prefix of every storage key. */
  readonly cachePrefix: string;
}

/**
 * A store of idempotency keys and their responses.
 *
 * Rules every implementation keeps (the conformance suite in `@slicekit/runtime/testing` checks them):
 * 1. `isKeyProcessed` reserves an absent key in the same atomic step that saw it absent.
 * 2. A live reservation answers `{ processed: true, response: null }`, never a response.
 * 3. A reservation older than the in-flight timeout is reclaimable, atomically.
 * 4. Storage keys are `storageKey(prefix, keyInfo)`: hashed, never escaped or truncated.
 * 5. `markKeyAsProcessed` writes only while `reservation` is still the current one (fencing) and
 *    expires the response after the expiration; it answers whether it wrote.
 * 6. The reservation keeps `keyInfo.fingerprint`, and a duplicate's answer carries it back, in
 *    flight or completed.
 */
export interface IdempotencyKeyStore {
  isKeyProcessed(keyInfo: IdempotentKeyInfo): Promise<KeyCheckResult>;
  markKeyAsProcessed(
    keyInfo: IdempotentKeyInfo,
    response: CachedResponse,
    reservation: string,
  ): Promise<boolean>;
  /** Drops the caller's own reservation at once (handler failed or answered uncacheably). */
  releaseReservation(keyInfo: IdempotentKeyInfo, reservation: string): Promise<void>;
  /** Optional: called once when the app starts (create tables, connect). */
  start?(): Promise<void>;
  /** Optional: closes connections and timers the store opened itself. */
  close?(): Promise<void>;
  /**
   * Optional: the store's synchronous core, for a store that answers in the same call (the
   * memory store), or `undefined`. The guard then checks, records and releases without a promise
   * or a microtask hop per step.
   */
  synchronous?(): SynchronousKeyStore | undefined;
}

/** The three store operations answered in the same call, as `IdempotencyKeyStore.synchronous` gives them. */
export interface SynchronousKeyStore {
  /** `isKeyProcessed`, answered at once. */
  checkKeyNow(keyInfo: IdempotentKeyInfo): KeyCheckResult;
  /**
   * `markKeyAsProcessed` without the `CachedResponse` (and its two `Date`s): the response's
   * parts, kept until `deadline` (epoch ms); `body` may be a string standing for its UTF-8 bytes.
   * True when it wrote.
   */
  completeNow(
    keyInfo: IdempotentKeyInfo,
    reservation: string,
    statusCode: number,
    body: Buffer | string | null,
    contentType: string,
    headers: readonly ResponseHeader[],
    createdAt: number,
    deadline: number,
  ): boolean;
  /** `releaseReservation`, done at once. */
  releaseNow(keyInfo: IdempotentKeyInfo, reservation: string): void;
}

/** A store class the application declares; it is constructed with the resolved timings. */
export type IdempotencyKeyStoreClass = new (timings: StoreTimings) => IdempotencyKeyStore;
