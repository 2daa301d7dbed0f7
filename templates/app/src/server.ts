// Starts the API: migrates the database named by DATABASE_URL, then listens on PORT.
import { createApp } from './app.js';
import { port } from './config.js';
import { createKnex, migrate } from './db.js';
import { createLogger } from './logger.js';

const logger = createLogger();
const knex = createKnex();

try {
  await migrate(knex, logger);
} catch (error) {
  logger.fatal({ err: error }, 'migrations failed; not starting');
  await knex.destroy();
  process.exit(1);
}

const app = await createApp({ knex, logger });
const server = app.listen(port, (error?: Error) => {
  if (error) {
    logger.fatal({ err: error }, `cannot listen on port ${port}`);
    process.exit(1);
  }
  logger.info({ port }, `listening on http://localhost:${port}`);
});

// Finish the requests in flight, then release the database connections.
function shutDown(signal: NodeJS.Signals): void {
  logger.info({ signal }, 'shutting down');
  server.close(() => {
    void knex.destroy().then(() => process.exit(0));
  });
}
process.once('SIGINT', shutDown);
process.once('SIGTERM', shutDown);
