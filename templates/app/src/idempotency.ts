// The idempotency guard of routes that require an `X-Idempotency-Key` (the operations an entity
// spec lists under `idempotent`). Yours to change.
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
  });
}
