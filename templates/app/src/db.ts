// The app's Knex instance and its one migration entry point, shared by start-up and `npm run migrate`.
import knexFactory, { type Knex } from 'knex';
import { discoverSlices } from '@slicekit/runtime/crud';
import { prepareDatabase, withMigrationConnection } from '@slicekit/runtime/database';
import { recordFailedStatements } from '@slicekit/runtime/logging';
import { migrateLatest, type MigrateLatestResult } from '@slicekit/runtime/reference-data';
import { databaseTimeouts, databaseUrl } from './config.js';
import { knexConfig, migrations } from './knexfile.js';
import type { Logger } from './logger.js';
import { referenceData } from './reference-data.js';

/**
 * A Knex instance on `url`; for SQLite the file's folder is created first. A failed query's
 * statement (placeholders, no values) is remembered for the log (recordFailedStatements).
 */
export function createKnex(url: string = databaseUrl): Knex {
  prepareDatabase(url);
  return recordFailedStatements(knexFactory(knexConfig(url, databaseTimeouts)));
}

/**
 * Applies pending migrations, then the reference data of every slice and of `reference-data.ts`.
 * `npm run migrate`, the server's start-up and the tests all come through here. They run on a
 * connection of their own without the statement timeout requests get (withMigrationConnection).
 */
export async function migrate(knex: Knex, logger: Logger): Promise<MigrateLatestResult> {
  const slices = await discoverSlices(new URL('./slices/', import.meta.url));
  // SQLite runs them with foreign keys off, since it alters a table by copying it.
  return withMigrationConnection(knex, (migrator) =>
    migrateLatest(migrator, {
      migrations,
      referenceData: [...slices.flatMap((slice) => slice.referenceData ?? []), ...referenceData],
      logger,
    }),
  );
}
