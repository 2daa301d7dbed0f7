// Creating and dropping the database a URL names, and running migrations on a connection of their
// own: what a generated app's `npm run migrate`, start-up and tests call, the same on each database.
import knexFactory, { type Knex } from 'knex';
import { dialectFor, dialectForUrl, type ServerConnector } from '../sql/index.js';
import { knexConfig, unboundedStatements } from './knex-config.js';

export { databaseNameOf, withDatabaseName } from '../sql/index.js';

// A connection to the server itself, of one connection, closed after `work`.
const onServer: ServerConnector = async (url, work) => {
  const server = knexFactory({ ...knexConfig(url), pool: { min: 0, max: 1 } });
  try {
    return await work(server);
  } finally {
    await server.destroy();
  }
};

/**
 * Creates the database `url` names unless it exists; true when it was created. SQLite: no-op
 * (the first connection creates the file).
 *
 * @example
 * if (await ensureDatabase(process.env.DATABASE_URL)) logger.info('database created');
 */
export function ensureDatabase(url: string): Promise<boolean> {
  return dialectForUrl(url).admin.ensureDatabase(url, onServer);
}

/** Drops the database `url` names (for SQLite, deletes the file). */
export function dropDatabase(url: string): Promise<void> {
  return dialectForUrl(url).admin.dropDatabase(url, onServer);
}

/**
 * Creates a throwaway database beside the one `url` names (a new database on the same server, or
 * a SQLite file in a new temporary folder) and answers its URL; `dropThrowawayDatabase` removes it.
 *
 * @example
 * const url = await createThrowawayDatabase(databaseUrl, `test_${randomBytes(4).toString('hex')}`);
 */
export async function createThrowawayDatabase(url: string, suffix: string): Promise<string> {
  const throwaway = dialectForUrl(url).admin.throwawayUrl(url, suffix);
  await ensureDatabase(throwaway);
  return throwaway;
}

/** Drops a database `createThrowawayDatabase` made, and its temporary folder. */
export function dropThrowawayDatabase(url: string): Promise<void> {
  return dialectForUrl(url).admin.dropThrowaway(url, onServer);
}

/** Makes what must exist before the first connection to `url` (a SQLite file's folder). */
export function prepareDatabase(url: string): void {
  dialectForUrl(url).admin.prepare(url);
}

/**
 * Runs `work` (migrations, reference data) on a connection of its own without the statement
 * timeout requests get (`unboundedStatements`); on SQLite with foreign keys off meanwhile, since
 * it alters a table by copying it and dropping the old one.
 *
 * @example
 * await withMigrationConnection(knex, (migrator) => migrateLatest(migrator, options));
 */
export async function withMigrationConnection<T>(
  knex: Knex,
  work: (migrator: Knex) => Promise<T>,
): Promise<T> {
  const unbounded = unboundedStatements(knex);
  const migrator = unbounded ? knexFactory(unbounded) : knex;
  try {
    return await dialectFor(migrator).migrating(migrator, () => work(migrator));
  } finally {
    if (migrator !== knex) await migrator.destroy();
  }
}
