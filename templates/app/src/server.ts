// Starts the API: migrates the database named by DATABASE_URL, starts the event bus, then listens
// on PORT while the events left pending are delivered in the background.
import { ConfigError } from '@slicekit/runtime/config';
import { answerClientError } from '@slicekit/runtime/http';
import { closeIdempotency } from '@slicekit/runtime/idempotency';
import { startMetrics } from '@slicekit/runtime/metrics';

// Settings first (the modules below read them as they load): one the app cannot use stops it here
// with a line naming the variable, the value and what it accepts, before anything starts.
const { metricsPort, port } = await import('./config.js').catch((error: unknown) => {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`cannot start: ${error.message}\n`);
  process.exit(1);
});
const { createApp } = await import('./app.js');
const { createKnex, migrate } = await import('./db.js');
const { createEventBus } = await import('./events.js');
const { createLogger } = await import('./logger.js');

const logger = createLogger();
const knex = createKnex();
const events = createEventBus(knex, logger);

try {
  await migrate(knex, logger);
  // Checks the outbox and returns: events committed before a crash or restart are delivered in
  // the background, oldest first, then each commit's as it ends, so a backlog never delays serving.
  await events.start();
} catch (error) {
  logger.fatal({ err: error }, 'start-up failed (migrations or the event outbox); not starting');
  await knex.destroy();
  process.exit(1);
}

// Prometheus text at /metrics on a port of its own (METRICS_PORT; 0 = off, nothing loaded).
const metrics = await startMetrics({ port: metricsPort, knex, logger }).catch((error: unknown) => {
  logger.fatal({ err: error }, `cannot serve metrics on port ${metricsPort}`);
  return process.exit(1);
});

const app = await createApp({ knex, logger });
const server = app.listen(port, (error?: Error) => {
  if (error) {
    logger.fatal({ err: error }, `cannot listen on port ${port}`);
    process.exit(1);
  }
  logger.info({ port }, `listening on http://localhost:${port}`);
});
// A request Node's HTTP parser refuses (a control character in a header...) gets problem+json too.
server.on('clientError', answerClientError);

// Finish the requests in flight, then the event delivery in flight (events not yet delivered stay
// pending for the next start), then release the database connections.
function shutDown(signal: NodeJS.Signals): void {
  logger.info({ signal }, 'shutting down');
  server.close(() => {
    void closeIdempotency(app)
      .then(() => events.stop())
      .then(() => metrics.close())
      .then(() => knex.destroy())
      .then(() => process.exit(0));
  });
}
process.once('SIGINT', shutDown);
process.once('SIGTERM', shutDown);
