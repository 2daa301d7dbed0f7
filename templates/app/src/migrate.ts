// `npm run migrate`: creates the database if the server has none by that name, applies pending
// migrations and reference data, and exits.
import { databaseUrl } from './config.js';
import { ensureDatabase } from './database-admin.js';
import { createKnex, migrate } from './db.js';
import { createLogger } from './logger.js';

const logger = createLogger();
if (await ensureDatabase(databaseUrl)) logger.info('created the database');

const knex = createKnex();
try {
  const { migrations } = await migrate(knex, logger);
  if (migrations.length === 0) logger.info('migrations: already up to date');
} finally {
  await knex.destroy();
}
