// The idempotency guard of routes that require an `X-Idempotency-Key` (the operations an entity
// spec lists under `idempotent`). Yours to change.
//
// A retry with a key already used replays the first response (CachedResult): a retried create
// gets the created resource and its Location again, not a 409 that leaves the client without the
// new id. Set `options.conflictHandling = 'ConflictResponse'` to answer 409 instead. The header is
// the runtime's default, X-Idempotency-Key; `standardIdempotencyKeyHeader(options)` switches to
// the IETF draft's Idempotency-Key.
//
// The default store keeps keys in this process's memory: fine for one instance, lost on restart and
// not shared, so the guard logs one warning per start. With several instances, register a shared
// store instead, e.g.
//   addIdempotencyWithPostgresStore(app, process.env.DATABASE_URL!, configure)
// from '@slicekit/runtime/idempotency/postgres' (also /mysql and /redis; see the stores guide).
import type { Express } from 'express';
import { addIdempotentKey, type IdempotencyOptions } from '@slicekit/runtime/idempotency';
import type { Logger } from './logger.js';

/** Registers the guard on `app`; it is validated and started before the app serves. */
export function useIdempotency(app: Express, logger: Logger): void {
  addIdempotentKey(app, (options: IdempotencyOptions) => {
    options.logger = logger;
    options.conflictHandling = 'CachedResult';
  });
}
