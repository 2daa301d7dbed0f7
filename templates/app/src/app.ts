// Builds the Express app without listening, so tests can drive it in process with supertest.
import express, { type Express } from 'express';
import type { Knex } from 'knex';
import { discoverSlices } from '@slicekit/runtime/crud';
import { notFound, problemHandler } from './http/problems.js';
import { requestLog } from './http/request-log.js';
import type { Logger } from './logger.js';

/** What every slice receives when it is mounted. */
export interface AppDeps {
  knex: Knex;
  logger: Logger;
}

/**
 * The app: JSON bodies, every slice found under `src/slices/` mounted at `/v1`, then 404 and
 * problem+json errors. Adding a slice needs no edit here: slices are discovered at start-up.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLog(deps.logger));
  app.use(express.json());

  const v1 = express.Router();
  for (const slice of await discoverSlices(new URL('./slices/', import.meta.url))) {
    slice.mount(v1, deps);
  }
  app.use('/v1', v1);

  app.use(notFound);
  app.use(problemHandler(deps.logger));
  return app;
}
