// What the upgrade tests share: a generated migration loaded from the app's folder, and an app
// serving the slices of one upgrade step.
import express, { type Express } from 'express';
import type { Knex } from 'knex';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discoverSlices } from '@slicekit/runtime/crud';
import { silentLogger } from '../../support/scratch-slices.js';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** The migration `file` of the app in `dir`. */
export const loadMigration = async (dir: string, file: string) =>
  (await import(pathToFileURL(join(dir, 'migrations', file)).href)) as Migration;

/** An app serving every slice under `slices` at `/v1`. */
export async function appOf(slices: string, knex: Knex): Promise<Express> {
  const app = express();
  app.use(express.json());
  const router = express.Router();
  for (const slice of await discoverSlices(slices))
    slice.mount(router, { knex, logger: silentLogger });
  app.use('/v1', router);
  return app;
}
