// The idempotency guard of routes that require an `X-Idempotency-Key` (the operations an entity
// spec lists under `idempotent`), and where it keeps the keys. Yours to change.
//
// A retry with a key already used replays the first response (CachedResult): a retried create
// gets the created resource and its Location again, not a 409 that leaves the client without the
// new id. Set `options.conflictHandling = 'ConflictResponse'` to answer 409 instead. The header is
// the runtime's default, X-Idempotency-Key; `standardIdempotencyKeyHeader(options)` switches to
// the IETF draft's Idempotency-Key.
//
// The keys live where every instance of the app sees them, so a retry reaching another instance
// replays instead of running again: in Redis when IDEMPOTENCY_STORE_URL names one, else in this
// app's own database on PostgreSQL and MySQL (the table of migrations/*_slicekit_idempotency_keys),
// else (SQLite, one process) in process memory. Start-up logs which, in one line.
import type { Express } from 'express';
import type { Knex } from 'knex';
import type { HealthCheck } from '@slicekit/runtime/health';
import { addIdempotentKey, type IdempotencyOptions } from '@slicekit/runtime/idempotency';
import { addIdempotencyWithKnexStore, keyTableDatabase } from '@slicekit/runtime/idempotency/knex';
import { idempotencyStoreUrl } from './config.js';
import type { Logger } from './logger.js';

const healthChecks = new WeakMap<Express, HealthCheck>();

/**
 * Registers the guard on `app` with its store; it is validated and started before the app
 * serves. Redis's client is loaded only when IDEMPOTENCY_STORE_URL asks for it.
 */
export async function useIdempotency(app: Express, knex: Knex, logger: Logger): Promise<void> {
  const configure = (options: IdempotencyOptions) => {
    options.logger = logger;
    options.conflictHandling = 'CachedResult';
  };
  if (idempotencyStoreUrl) {
    const { addIdempotencyWithRedisStore } = await import('@slicekit/runtime/idempotency/redis');
    const store = addIdempotencyWithRedisStore(
      app,
      { connection: idempotencyStoreUrl, logger },
      configure,
    );
    healthChecks.set(app, {
      name: 'idempotency',
      check: (signal) => untilAborted(store.ping(), signal),
    });
    // Host and port only: the URL may carry a password.
    const { host } = new URL(idempotencyStoreUrl);
    logger.info({ store: 'redis', host }, `idempotency keys are kept in Redis at ${host}`);
    return;
  }
  // PostgreSQL or MySQL; undefined on SQLite.
  const database = keyTableDatabase(knex);
  if (database) {
    // Expired keys are deleted every 15 minutes by each instance, a bounded batch at a time.
    addIdempotencyWithKnexStore(app, { knex, logger, purgeIntervalMs: 15 * 60_000 }, configure);
    logger.info(
      { store: 'database' },
      `idempotency keys are kept in the app's ${database} database`,
    );
    return;
  }
  // SQLite: one process is the deployment. The guard logs the memory store's one warning itself.
  addIdempotentKey(app, configure);
}

/**
 * The readiness check of the idempotency store when it is not the app's database (whose own
 * check covers it): Redis answers a PING. Undefined otherwise.
 */
export function idempotencyHealthCheck(app: Express): HealthCheck | undefined {
  return healthChecks.get(app);
}

/** `work`, or a rejection as soon as `signal` aborts (the readiness probe's bound). */
function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
