// The app's Knex instance and its one migration entry point, shared by start-up and `npm run migrate`.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { discoverSlices } from '@slicekit/runtime/crud';
import { recordFailedStatements } from '@slicekit/runtime/logging';
import { migrateLatest, type MigrateLatestResult } from '@slicekit/runtime/reference-data';
import { databaseTimeouts, databaseUrl } from './config.js';
import { dialectOf, knexConfig, migrations, unboundedStatements } from './knexfile.js';
import type { Logger } from './logger.js';
import { referenceData } from './reference-data.js';

/**
 * A Knex instance on `url`; for SQLite the file's folder is created first. A failed query's
 * statement (placeholders, no values) is remembered for the log (recordFailedStatements).
 */
export function createKnex(url: string = databaseUrl): Knex {
  if (dialectOf(url) === 'sqlite' && url !== ':memory:') {
    mkdirSync(dirname(resolve(url)), { recursive: true });
  }
  return recordFailedStatements(knexFactory(knexConfig(url, databaseTimeouts)));
}

/**
 * Applies pending migrations, then the reference data of every slice and of `reference-data.ts`.
 * `npm run migrate`, the server's start-up and the tests all come through here. They run on a
 * connection of their own without the statement timeout requests get (unboundedStatements).
 */
export async function migrate(knex: Knex, logger: Logger): Promise<MigrateLatestResult> {
  const slices = await discoverSlices(new URL('./slices/', import.meta.url));
  const unbounded = unboundedStatements(knex);
  const migrator = unbounded ? knexFactory(unbounded) : knex;
  // SQLite alters a table by copying it and dropping the old one, which with foreign keys on
  // would delete (or refuse) the rows referring to it: migrations run with them off, as SQLite
  // advises, on its one connection.
  const sqlite = (migrator.client.config as Knex.Config).client === 'better-sqlite3';
  if (sqlite) await migrator.raw('PRAGMA foreign_keys = OFF');
  try {
    return await migrateLatest(migrator, {
      migrations,
      referenceData: [...slices.flatMap((slice) => slice.referenceData ?? []), ...referenceData],
      logger,
    });
  } finally {
    if (sqlite) await migrator.raw('PRAGMA foreign_keys = ON');
    if (migrator !== knex) await migrator.destroy();
  }
}
