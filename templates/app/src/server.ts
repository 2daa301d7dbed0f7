// Starts the API: migrates the database named by DATABASE_URL (unless MIGRATE_ON_START=false),
// starts the event bus, then listens on PORT while the events left pending are delivered in the
// background. On SIGTERM or SIGINT it drains: unready at once, then stops once the requests in
// flight are answered, within SHUTDOWN_GRACE_MS.
import { ConfigError } from '@slicekit/runtime/config';
import {
  databaseCheck,
  downReason,
  trackRequests,
  type HealthCheck,
} from '@slicekit/runtime/health';
import { answerClientError } from '@slicekit/runtime/http';
import { closeIdempotency } from '@slicekit/runtime/idempotency';
import { startMetrics } from '@slicekit/runtime/metrics';
import { stopTracing } from '@slicekit/runtime/tracing';

// Settings first (the modules below read them as they load): one the app cannot use stops it here
// with a line naming the variable, the value and what it accepts, before anything starts.
const { metricsPort, migrateOnStart, port, shutdownGraceMs } = await import('./config.js').catch(
  (error: unknown) => {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`cannot start: ${error.message}\n`);
    process.exit(1);
  },
);
const { createApp } = await import('./app.js');
const { createKnex, migrate } = await import('./db.js');
const { idempotencyHealthCheck } = await import('./idempotency.js');
const { createEventBus, eventHealthChecks } = await import('./events.js');
const { migrations } = await import('./knexfile.js');
const { createLogger } = await import('./logger.js');

const logger = createLogger();
const knex = createKnex();
const events = createEventBus(knex, logger);
let shuttingDown = false;

// A signal before the server listens (a slow migration, an orchestrator giving up on a slow start)
// lets the start-up step under way finish, so no migration lock is left held, then stops.
let onSignal = (signal: NodeJS.Signals): void => {
  logger.info({ signal }, 'stopping before serving, once the start-up step under way ends');
  shuttingDown = true;
};
process.on('SIGINT', (signal) => onSignal(signal));
process.on('SIGTERM', (signal) => onSignal(signal));

/** Ends a start a signal interrupted: nothing listens yet, so nothing is in flight. */
async function exitBeforeServing(): Promise<never> {
  await events.stop();
  await knex.destroy();
  await stopTracing();
  return process.exit(0);
}

// What /health/ready checks; a dependency the app adds (a shared store, a broker) joins here.
const database = databaseCheck(knex, { migrations });
const checks: HealthCheck[] = [database, ...eventHealthChecks(events)];

if (migrateOnStart) {
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
} else {
  void startWhenMigrated();
}
if (shuttingDown) await exitBeforeServing();

/**
 * With migrations left to another process or a one-shot job, this one serves at once (unready
 * until the schema is there) and starts the event bus once the database is found migrated.
 */
async function startWhenMigrated(): Promise<void> {
  let waiting = false;
  while (!shuttingDown) {
    try {
      await database.check(AbortSignal.timeout(5000));
    } catch (error) {
      if (!waiting) {
        const reason = downReason(error);
        logger.warn({ reason }, 'MIGRATE_ON_START=false and the database is not ready: unready');
      }
      waiting = true;
      await new Promise((resolve) => setTimeout(resolve, 2000).unref());
      continue;
    }
    // Migrated: an outbox or a broker client that cannot start now is a fault to see, not a wait.
    try {
      await events.start();
    } catch (error) {
      logger.fatal({ err: error }, 'the event outbox cannot start; stopping');
      await knex.destroy();
      process.exit(1);
    }
    if (waiting) logger.info('the database is migrated: events started');
    return;
  }
}

// Prometheus text at /metrics on a port of its own (METRICS_PORT; 0 = off, nothing loaded).
const metrics = await startMetrics({ port: metricsPort, knex, logger }).catch((error: unknown) => {
  logger.fatal({ err: error }, `cannot serve metrics on port ${metricsPort}`);
  return process.exit(1);
});

const app = await createApp({
  knex,
  logger,
  health: { checks, draining: () => shuttingDown },
}).catch(async (error: unknown) => {
  logger.fatal(
    { err: error },
    'start-up failed (the idempotency guard or its store); not starting',
  );
  await knex.destroy();
  return process.exit(1);
});
const idempotencyCheck = idempotencyHealthCheck(app);
if (idempotencyCheck) checks.push(idempotencyCheck);
if (shuttingDown) {
  await closeIdempotency(app);
  await metrics.close();
  await exitBeforeServing();
}
const server = app.listen(port, (error?: Error) => {
  if (error) {
    logger.fatal({ err: error }, `cannot listen on port ${port}`);
    process.exit(1);
  }
  logger.info({ port }, `listening on http://localhost:${port}`);
});
// A request Node's HTTP parser refuses (a control character in a header...) gets problem+json too.
server.on('clientError', answerClientError);
const requests = trackRequests(server);

// Readiness turns 503 at once, so a load balancer stops sending; the server keeps answering until
// the requests in flight are done, then closes, and the event delivery in flight ends (events not
// yet delivered stay pending for the next start) before the database connections are released.
// Past SHUTDOWN_GRACE_MS the process exits anyway. A signal during the drain changes nothing: a
// terminal's Ctrl-C reaches a supervisor (npm run demo) and its child both, and the supervisor
// passes its own on.
function shutDown(signal: NodeJS.Signals): void {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal, inFlight: requests.inFlight }, 'shutting down: draining');
  setTimeout(() => {
    logger.warn({ inFlight: requests.inFlight }, 'shutdown grace time passed: exiting');
    server.closeAllConnections();
    process.exit(0);
  }, shutdownGraceMs).unref();
  void requests
    .drain()
    .then(() => events.stop())
    .then(() => closeIdempotency(app))
    .then(() => metrics.close())
    .then(() => knex.destroy())
    .then(
      () => logger.info('stopped'),
      (error: unknown) => logger.error({ err: error }, 'shutdown clean-up failed'),
    )
    // The spans of the last requests, still buffered (nothing to do when tracing is off).
    .then(() => stopTracing())
    .finally(() => process.exit(0));
}
onSignal = shutDown;
