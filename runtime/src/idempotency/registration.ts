// Registering the guard on an app: which store and which options callback win, by the spec's
// precedence rules. Nothing is built here; the winner is resolved when the app starts.
import type { Application } from 'express';
import { IdempotencyConfigError, IdempotencyErrorCode } from './errors.js';
import type { ConfigureIdempotency } from './options.js';
import type { IdempotencyKeyStore, IdempotencyKeyStoreClass, StoreTimings } from './store.js';
import { MemoryIdempotencyStore } from './stores/memory.js';

/** A factory the guard calls once, at start, with the resolved timings. */
export type IdempotencyKeyStoreFactory = (timings: StoreTimings) => IdempotencyKeyStore;

/** What `addIdempotentKeyWithStore` accepts: an instance, a class, or a factory. */
export type IdempotencyStoreSource =
  IdempotencyKeyStore | IdempotencyKeyStoreClass | IdempotencyKeyStoreFactory;

/** The app a guard is registered on (an Express application). */
export type IdempotencyApp = Application;

interface Registration {
  /** False for the default (memory) registration, which any explicit store replaces. */
  readonly explicit: boolean;
  readonly source: IdempotencyStoreSource;
  readonly configure: ConfigureIdempotency | undefined;
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
  registrations.set(app, {
    explicit: false,
    source: (timings: StoreTimings) => new MemoryIdempotencyStore(timings),
    configure,
  });
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
  registrations.set(app, { explicit: true, source: store, configure });
}

/** The app of `app`'s mount chain (itself first) that registered a guard, and its registration. */
export function registrationOf(app: object | undefined): [object, Registration] | undefined {
  for (let current = app as { parent?: object } | undefined; current; current = current.parent) {
    const registration = registrations.get(current);
    if (registration) return [current, registration];
  }
  return undefined;
}

function isStoreInstance(source: IdempotencyStoreSource): source is IdempotencyKeyStore {
  return typeof source === 'object' && source !== null;
}

function isStoreClass(source: IdempotencyStoreSource): source is IdempotencyKeyStoreClass {
  if (typeof source !== 'function') return false;
  const proto = (source as { prototype?: { isKeyProcessed?: unknown } }).prototype;
  return (
    typeof proto?.isKeyProcessed === 'function' ||
    /^class[\s{]/.test(Function.prototype.toString.call(source))
  );
}

/** Builds the winning store once, at start. */
export function buildStore(
  source: IdempotencyStoreSource,
  timings: StoreTimings,
): IdempotencyKeyStore {
  let store: IdempotencyKeyStore;
  if (isStoreInstance(source)) store = source;
  else if (isStoreClass(source)) store = new source(timings);
  else store = (source as IdempotencyKeyStoreFactory)(timings);
  if (
    typeof store?.isKeyProcessed !== 'function' ||
    typeof store.markKeyAsProcessed !== 'function' ||
    typeof store.releaseReservation !== 'function'
  ) {
    throw new IdempotencyConfigError(
      IdempotencyErrorCode.storeUnusable,
      'the registered idempotency store lacks isKeyProcessed, markKeyAsProcessed or releaseReservation',
    );
  }
  return store;
}
