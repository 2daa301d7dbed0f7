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

/** The names of the indexes of `table` as the database's catalog has them (no primary key). */
export async function indexNames(knex: Knex, dialect: string, table: string): Promise<string[]> {
  if (dialect === 'sqlite') {
    const rows = (await knex.raw(
      "select name from pragma_index_list(?) where origin <> 'pk' order by name",
      [table],
    )) as { name: string }[];
    return rows.map((r) => r.name);
  }
  if (dialect === 'postgres') {
    const { rows } = (await knex.raw(
      "select indexname as name from pg_indexes where tablename = ? and indexname <> ? || '_pkey' order by 1",
      [table, table],
    )) as { rows: { name: string }[] };
    return rows.map((r) => r.name);
  }
  const [rows] = (await knex.raw(
    "select distinct index_name as name from information_schema.statistics where table_schema = database() and table_name = ? and index_name <> 'PRIMARY' order by 1",
    [table],
  )) as [{ name: string }[]];
  return rows.map((r) => r.name);
}
