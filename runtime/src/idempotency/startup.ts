// The start-up step: validate the winning registration's options, build and start its store and
// log the memory-store warning, before the app listens (or, at the latest, on the first guarded
// request; see guard.ts).
import type { Server } from 'node:http';
import type { Application } from 'express';
import {
  defaultIdempotencyOptions,
  resolveIdempotencyOptions,
  type ResolvedIdempotencyOptions,
} from './options.js';
import { STANDARD_KEY_HEADER } from './key-header.js';
import { defaultLogger, type IdempotencyLogger } from './logger.js';
import { compileKeyPattern } from './pattern.js';
import { buildStore, registrationOf } from './registration.js';
import { guardRuntimeOf, setGuardRuntime } from './runtime.js';
import type { IdempotencyKeyStore } from './store.js';
import { validateIdempotencyOptions } from './validate-options.js';

/** What `prepareApp` resolved: the options in force and the started store. */
export interface PreparedIdempotency {
  readonly options: ResolvedIdempotencyOptions;
  readonly store: IdempotencyKeyStore;
}

const preparing = new WeakMap<object, Promise<PreparedIdempotency | undefined>>();
const configuredLoggers = new WeakMap<object, IdempotencyLogger>();

/** The logger the app's registration configured at its last start, valid options or not. */
export function configuredLogger(app: object): IdempotencyLogger {
  const logger = configuredLoggers.get(app);
  return typeof logger?.error === 'function' ? logger : defaultLogger;
}

/** The message of the one warning logged per start while the memory store is in use. */
export const MEMORY_STORE_WARNING =
  'idempotency: keys live in process memory (the default memory store); they are lost on restart and not shared between instances, so duplicates reaching another instance run again. Register a PostgreSQL, MySQL or Redis store for production.';

/**
 * Prepares the guard registered on `app`: validates options (`OptionsValidationError` lists
 * every broken rule), builds and starts the store, logs the memory-store warning. Call it before
 * the app serves requests; calling it again returns the same result. Resolves `undefined` when
 * `app` registered no guard.
 *
 * @example
 * addIdempotentKey(app);
 * app.post('/orders', requiredIdempotentKey(), createOrder);
 * await prepareApp(app);
 * app.listen(3000);
 */
export function prepareApp(app: Application | object): Promise<PreparedIdempotency | undefined> {
  let prepared = preparing.get(app);
  if (!prepared) {
    prepared = prepare(app);
    preparing.set(app, prepared);
    // A failed start may be retried after fixing the cause (for example a database coming up).
    prepared.catch(() => preparing.delete(app));
  }
  return prepared;
}

async function prepare(app: object): Promise<PreparedIdempotency | undefined> {
  const [owner, registration] = registrationOf(app) ?? [];
  if (owner !== app || !registration) return undefined;
  const configured = defaultIdempotencyOptions();
  // Only the winning registration's callback runs; callbacks are never merged.
  registration.configure?.(configured);
  configuredLoggers.set(app, configured.logger);
  validateIdempotencyOptions(configured);
  const options = resolveIdempotencyOptions(configured);
  const store = buildStore(registration.source, {
    expirationMs: options.expirationMs,
    inFlightReservationTimeoutMs: options.inFlightReservationTimeoutMs,
    cachePrefix: options.cachePrefix,
  });
  await store.start?.();
  // Only the default registration resolves to the in-process store; any other store is silent.
  if (!registration.explicit) options.logger.warn({ store: 'memory' }, MEMORY_STORE_WARNING);
  const headerName = options.idempotencyHeaderKey.toLowerCase();
  setGuardRuntime(app, {
    options,
    store,
    matches: compileKeyPattern(options.idempotencyKeyPattern),
    headerName,
    structuredKey: headerName === STANDARD_KEY_HEADER.toLowerCase(),
    replayedHeaders: new Map(options.replayedHeaders.map((name) => [name.toLowerCase(), name])),
  });
  return { options, store };
}

/** Where `startApp` listens. */
export interface StartAppOptions {
  /** @default process.env.PORT, else 3000 */
  port?: number;
  /** @default undefined (every interface) */
  host?: string;
}

/**
 * `prepareApp(app)`, then `app.listen`; resolves the listening server. Closing the server closes
 * the guard's store.
 *
 * @example
 * const server = await startApp(app, { port: 3000 });
 */
export async function startApp(app: Application, options: StartAppOptions = {}): Promise<Server> {
  await prepareApp(app);
  const port = options.port ?? Number(process.env.PORT ?? 3000);
  const server = await new Promise<Server>((resolve, reject) => {
    const done = (error?: Error) => (error ? reject(error) : resolve(listening));
    const listening: Server = options.host
      ? app.listen(port, options.host, done)
      : app.listen(port, done);
  });
  server.once('close', () => void closeIdempotency(app));
  return server;
}

/** Closes the store the guard of `app` started (pools, timers); the guard must be prepared again. */
export async function closeIdempotency(app: Application | object): Promise<void> {
  const prepared = preparing.get(app);
  preparing.delete(app);
  const runtime = guardRuntimeOf(app);
  setGuardRuntime(app, undefined);
  const result = await prepared?.catch(() => undefined);
  await (result?.store ?? runtime?.store)?.close?.();
}
