// What every conformance case gets: fresh stores on the backend under test, unique keys, and
// small helpers for responses and waiting.
import { randomBytes } from 'node:crypto';
import type {
  CachedResponse,
  IdempotencyKeyStore,
  ResponseHeader,
  StoreTimings,
} from '../idempotency/index.js';

/** Options of the store conformance suite. */
export interface StoreConformanceOptions {
  /**
   * Makes a store for `timings`. Called once or twice per case; two stores made for the same
   * case must share one backend (same database or Redis) unless `distributed` is false.
   */
  createStore(timings: StoreTimings): IdempotencyKeyStore | Promise<IdempotencyKeyStore>;
  /**
   * Prefix of every storage key the suite writes; each case appends a random part, so the cases
   * never see each other's keys. With Redis, use a prefix you clean up afterwards.
   * @default 'conformance'
   */
  cachePrefix?: string;
  /**
   * In-flight timeout and expiration, in ms, of the cases that wait for one to pass. Raise it on
   * a slow backend: a case fails if one store call takes longer than this.
   * @default 800
   */
  shortTimeoutMs?: number;
  /** Callers racing for one key in the concurrency case. @default 25 */
  concurrency?: number;
  /** Rounds of the concurrency case, a new key each. @default 20 */
  rounds?: number;
  /**
   * The store is shared between processes (a database or Redis): the concurrency case then races
   * two store instances against each other. Leave false for an in-process store.
   * @default false
   */
  distributed?: boolean;
}

export interface ConformanceContext {
  readonly options: Required<Omit<StoreConformanceOptions, 'createStore'>>;
  /** A started store with long timings (nothing expires during a case). */
  store(): Promise<IdempotencyKeyStore>;
  /** A started store whose in-flight timeout and expiration are both `shortTimeoutMs`. */
  shortLivedStore(): Promise<IdempotencyKeyStore>;
  /** A started store whose in-flight timeout is `shortTimeoutMs` and expiration is long. */
  shortReservationStore(): Promise<IdempotencyKeyStore>;
  /** Waits until `shortTimeoutMs` has surely passed. */
  waitPastShortTimeout(): Promise<void>;
  /** A response as the guard would hand it over, expiring after `expirationMs` (long by default). */
  response(
    statusCode: number,
    body: Buffer | null,
    contentType?: string,
    expirationMs?: number,
    headers?: readonly ResponseHeader[],
  ): CachedResponse;
  /** Closes every store the case made. */
  dispose(): Promise<void>;
}

export const LONG_TIMINGS = {
  expirationMs: 60 * 60_000,
  inFlightReservationTimeoutMs: 10 * 60_000,
};

export function resolveConformanceOptions(
  options: StoreConformanceOptions,
): ConformanceContext['options'] {
  return {
    cachePrefix: options.cachePrefix ?? 'conformance',
    shortTimeoutMs: options.shortTimeoutMs ?? 800,
    concurrency: options.concurrency ?? 25,
    rounds: options.rounds ?? 20,
    distributed: options.distributed ?? false,
  };
}

export function createConformanceContext(options: StoreConformanceOptions): ConformanceContext {
  const resolved = resolveConformanceOptions(options);
  // One prefix per case: cases never collide, even when run against a store with old keys.
  const cachePrefix = `${resolved.cachePrefix}-${randomBytes(6).toString('hex')}`;
  const opened: IdempotencyKeyStore[] = [];
  const open = async (timings: Omit<StoreTimings, 'cachePrefix'>) => {
    const store = await options.createStore({ ...timings, cachePrefix });
    opened.push(store);
    await store.start?.();
    return store;
  };
  return {
    options: resolved,
    store: () => open(LONG_TIMINGS),
    shortLivedStore: () =>
      open({
        expirationMs: resolved.shortTimeoutMs,
        inFlightReservationTimeoutMs: resolved.shortTimeoutMs,
      }),
    shortReservationStore: () =>
      open({
        expirationMs: LONG_TIMINGS.expirationMs,
        inFlightReservationTimeoutMs: resolved.shortTimeoutMs,
      }),
    waitPastShortTimeout: () =>
      new Promise((resolve) => setTimeout(resolve, resolved.shortTimeoutMs + 150)),
    response: (
      statusCode,
      body,
      contentType = 'application/json',
      expirationMs = LONG_TIMINGS.expirationMs,
      headers = [],
    ) => {
      const now = Date.now();
      return {
        statusCode,
        body,
        contentType,
        headers,
        createdAt: new Date(now),
        expiresAt: new Date(now + expirationMs),
      };
    },
    dispose: async () => {
      await Promise.all(opened.map((store) => store.close?.()));
    },
  };
}
