// The guard's state per app: which store and which options callback won, by the spec's
// precedence rules (nothing is built at registration), and, once the app is prepared
// (startup.ts), what the guard reads on every request.
import type { Application } from 'express';
import { IdempotencyConfigError, IdempotencyErrorCode } from './errors.js';
import type { IdempotencyLogger } from './logger.js';
import type { ConfigureIdempotency, ResolvedIdempotencyOptions } from './options.js';
import type { KeyMatcher } from './pattern.js';
import type { IdempotencyKeyStore, IdempotencyKeyStoreClass, StoreTimings } from './store.js';
import { MemoryIdempotencyStore } from './stores/memory.js';

/** A factory the guard calls once, at start, with the resolved timings. */
export type IdempotencyKeyStoreFactory = (timings: StoreTimings) => IdempotencyKeyStore;

/** What `addIdempotentKeyWithStore` accepts: an instance, a class, or a factory. */
export type IdempotencyStoreSource =
  IdempotencyKeyStore | IdempotencyKeyStoreClass | IdempotencyKeyStoreFactory;

/** The app a guard is registered on (an Express application). */
export type IdempotencyApp = Application;

/** What `prepareApp` resolved: the options in force and the started store. */
export interface PreparedIdempotency {
  readonly options: ResolvedIdempotencyOptions;
  readonly store: IdempotencyKeyStore;
}

/** What the guard reads on every request of a prepared app. */
export interface GuardRuntime extends PreparedIdempotency {
  readonly matches: KeyMatcher;
  /** `idempotencyHeaderKey` lower-cased, as Node keys `req.headers`. */
  readonly headerName: string;
  /** The header is the standard `Idempotency-Key`, whose value may be a Structured Field string. */
  readonly structuredKey: boolean;
  /** `replayedHeaders`, keyed lower-case (as Node names response headers) to their spelling. */
  readonly replayedHeaders: ReadonlyMap<string, string>;
}

export interface Registration {
  readonly app: object;
  /** False for the default (memory) registration, which any explicit store replaces. */
  readonly explicit: boolean;
  readonly source: IdempotencyStoreSource;
  readonly configure: ConfigureIdempotency | undefined;
  /** The start under way or done (`prepareApp`) until it fails or is closed, and its result. */
  prepared?: Promise<GuardRuntime> | undefined;
  runtime?: GuardRuntime | undefined;
  /** The logger the callback configured at the last start, valid options or not. */
  logger?: IdempotencyLogger;
}

const registrations = new WeakMap<object, Registration>();

/**
 * Registers the guard on the in-process memory store. A complete no-op (its callback never runs)
 * when any registration already exists. `configure` runs when the app starts, not now.
 *
 * @example
 * addIdempotentKey(app, (options) => {
 *   options.conflictHandling = 'CachedResult';
 * });
 * await startApp(app, { port: 3000 });
 */
export function addIdempotentKey(app: IdempotencyApp, configure?: ConfigureIdempotency): void {
  if (registrations.has(app)) return;
  const source = (timings: StoreTimings) => new MemoryIdempotencyStore(timings);
  registrations.set(app, { app, explicit: false, source, configure });
}

/**
 * Registers the guard on the application's own store: an instance, a class constructed with the
 * `StoreTimings`, or a factory `(timings) => store` called once at start. It replaces a default
 * registration made before it (whose callback then never runs; callbacks are not merged); when
 * another explicit store is already registered it is a complete no-op (first explicit wins).
 *
 * @example
 * addIdempotentKeyWithStore(app, (timings) => new MyStore(client, timings));
 */
export function addIdempotentKeyWithStore(
  app: IdempotencyApp,
  store: IdempotencyStoreSource,
  configure?: ConfigureIdempotency,
): void {
  if (registrations.get(app)?.explicit) return;
  registrations.set(app, { app, explicit: true, source: store, configure });
}

/** The registration of `app`, or of the first app of its mount chain that has one. */
export function registrationOf(app: object | undefined): Registration | undefined {
  for (let current = app as { parent?: object } | undefined; current; current = current.parent) {
    const registration = registrations.get(current);
    if (registration) return registration;
  }
  return undefined;
}

/** Builds the winning store once, at start, with the timings of the resolved options. */
export function buildStore(
  source: IdempotencyStoreSource,
  { expirationMs, inFlightReservationTimeoutMs, cachePrefix }: StoreTimings,
) {
  const timings = { expirationMs, inFlightReservationTimeoutMs, cachePrefix };
  const store: Partial<IdempotencyKeyStore> | null =
    typeof source === 'object'
      ? source
      : isStoreClass(source)
        ? new source(timings)
        : (source as IdempotencyKeyStoreFactory)(timings);
  const methods = ['isKeyProcessed', 'markKeyAsProcessed', 'releaseReservation'] as const;
  if (!methods.every((method) => typeof store?.[method] === 'function')) {
    throw new IdempotencyConfigError(
      IdempotencyErrorCode.storeUnusable,
      'the registered idempotency store lacks isKeyProcessed, markKeyAsProcessed or releaseReservation',
    );
  }
  return store as IdempotencyKeyStore;
}

/** A class to construct (its prototype has the store's methods, or its source is a class). */
const isStoreClass = (source: IdempotencyStoreSource): source is IdempotencyKeyStoreClass =>
  typeof (source as { prototype?: Partial<IdempotencyKeyStore> }).prototype?.isKeyProcessed ===
    'function' || /^class[\s{]/.test(Function.prototype.toString.call(source));
