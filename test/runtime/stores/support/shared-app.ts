// A child-process app sharing an idempotency store with its siblings, registered through the
// store's own registration function (PostgreSQL and MySQL on a Knex instance of the app's): POST /orders records one side-effect row per handler run
// (in PostgreSQL), optionally waits, then answers 201.
// Configured by environment: STORE (postgres | mysql | redis), STORE_URL, SIDE_DB_URL,
// CACHE_PREFIX, IN_FLIGHT_MS, OPERATION_TIMEOUT_MS. Prints {"port": n} once listening.
import type { AddressInfo } from 'node:net';
import express from 'express';
import knexFactory from 'knex';
import pg from 'pg';
import { knexConfig } from '@slicekit/runtime/database';
import {
  requiredIdempotentKey,
  silentLogger,
  startApp,
  type ConfigureIdempotency,
} from '@slicekit/runtime/idempotency';
import { addIdempotencyWithKnexStore } from '@slicekit/runtime/idempotency/knex';
import { addIdempotencyWithRedisStore } from '@slicekit/runtime/idempotency/redis';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const app = express();
app.use(express.json());

const connection = {
  connection: env('STORE_URL'),
  operationTimeoutMs: Number(env('OPERATION_TIMEOUT_MS')),
  connectTimeoutMs: 1000,
};
const configure: ConfigureIdempotency = (options) => {
  options.inFlightReservationTimeout = Number(env('IN_FLIGHT_MS'));
  options.cachePrefix = env('CACHE_PREFIX');
  options.logger = silentLogger;
};
const timeoutMs = connection.operationTimeoutMs;
const appKnex = () =>
  knexFactory(
    knexConfig(connection.connection, {
      timeouts: {
        acquireTimeoutMs: timeoutMs,
        connectTimeoutMs: 1000,
        statementTimeoutMs: timeoutMs,
      },
    }),
  );
const register = {
  postgres: () => addIdempotencyWithKnexStore(app, appKnex(), configure),
  mysql: () => addIdempotencyWithKnexStore(app, appKnex(), configure),
  redis: () => addIdempotencyWithRedisStore(app, connection, configure),
}[env('STORE')];
if (!register) throw new Error(`unknown STORE ${env('STORE')}`);
register();

const sideEffects = new pg.Pool({ connectionString: env('SIDE_DB_URL'), max: 20 });
app.post('/orders', requiredIdempotentKey(), async (req, res) => {
  const key = req.get('x-idempotency-key');
  await sideEffects.query('insert into side_effects (idem_key, pid) values ($1, $2)', [
    key,
    process.pid,
  ]);
  const delay = Number(req.body?.delayMs ?? 0);
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  res.status(201).json({ key, pid: process.pid });
});
// A store failure reaches here: answer a bare 500 without printing a stack per request.
app.use(
  (_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ title: 'Internal Server Error' });
  },
);

const server = await startApp(app, { port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
