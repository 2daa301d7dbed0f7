// The start-up step: validate the winning registration's options, build and start its store and
// log the memory-store warning, before the app listens (or, at the latest, on the first guarded
// request; see guard.ts).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Application } from 'express';
import { STANDARD_KEY_HEADER } from './key-header.js';
import { defaultLogger, type IdempotencyLogger } from './logger.js';
import { defaultIdempotencyOptions, resolveIdempotencyOptions } from './options.js';
import { compileKeyPattern } from './pattern.js';
import {
  buildStore,
  registrationOf,
  type GuardRuntime,
  type PreparedIdempotency,
  type Registration,
} from './registration.js';
import { validateIdempotencyOptions } from './validate-options.js';

/** The logger the app's registration configured at its last start, valid options or not. */
export function configuredLogger(app: object): IdempotencyLogger {
  const logger = registrationOf(app)?.logger;
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
export async function prepareApp(app: object): Promise<PreparedIdempotency | undefined> {
  const registration = registrationOf(app);
  if (registration?.app !== app) return undefined;
  const prepared = (registration.prepared ??= prepare(registration));
  // A failed start may be retried after fixing the cause (for example a database coming up).
  return prepared.catch((error: unknown) => {
    if (registration.prepared === prepared) registration.prepared = undefined;
    throw error;
  });
}

async function prepare(registration: Registration): Promise<GuardRuntime> {
  const configured = defaultIdempotencyOptions();
  // Only the winning registration's callback runs; callbacks are never merged.
  registration.configure?.(configured);
  registration.logger = configured.logger;
  validateIdempotencyOptions(configured);
  const options = resolveIdempotencyOptions(configured);
  const store = buildStore(registration.source, options);
  await store.start?.();
  // Only the default registration resolves to the in-process store; any other store is silent.
  if (!registration.explicit) options.logger.warn({ store: 'memory' }, MEMORY_STORE_WARNING);
  const headerName = options.idempotencyHeaderKey.toLowerCase();
  return (registration.runtime = {
    options,
    store,
    matches: compileKeyPattern(options.idempotencyKeyPattern),
    headerName,
    structuredKey: headerName === STANDARD_KEY_HEADER.toLowerCase(),
    replayedHeaders: new Map(options.replayedHeaders.map((name) => [name.toLowerCase(), name])),
  });
}

/** Where `startApp` listens. */
export interface StartAppOptions {
  /** @default process.env.PORT, else 3000 */
  port?: number;
  /** @default undefined (every interface) */
  host?: string;
}

/**
 * `prepareApp(app)`, then listens as `app.listen` does; resolves the listening server. Closing
 * the server closes the guard's store.
 *
 * @example
 * const server = await startApp(app, { port: 3000 });
 */
export async function startApp(app: Application, options: StartAppOptions = {}): Promise<Server> {
  await prepareApp(app);
  const port = options.port ?? Number(process.env.PORT ?? 3000);
  const server = createServer(app).listen({ port, host: options.host });
  await once(server, 'listening');
  server.once('close', () => void closeIdempotency(app));
  return server;
}

/** Closes the store the guard of `app` started (pools, timers); the guard must be prepared again. */
export async function closeIdempotency(app: object): Promise<void> {
  const registration = registrationOf(app);
  const prepared = registration?.prepared;
  if (registration) registration.prepared = registration.runtime = undefined;
  await (await prepared?.catch(() => undefined))?.store.close?.();
}
