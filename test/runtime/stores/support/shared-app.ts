// A child-process app sharing an idempotency store with its siblings: POST /orders records one
// side-effect row per handler run (in PostgreSQL), optionally waits, then answers 201.
// Configured by environment: STORE (postgres | mysql | redis), STORE_URL, SIDE_DB_URL,
// CACHE_PREFIX, IN_FLIGHT_MS, OPERATION_TIMEOUT_MS. Prints {"port": n} once listening.
import express from 'express';
import pg from 'pg';
import type {
  IdempotencyKeyStore,
  StoreTimings,
} from '../../../../runtime/src/idempotency/store.js';
import { MySqlIdempotencyStore } from '../../../../runtime/src/idempotency/stores/mysql-store.js';
import { PostgresIdempotencyStore } from '../../../../runtime/src/idempotency/stores/postgres-store.js';
import { RedisIdempotencyStore } from '../../../../runtime/src/idempotency/stores/redis-store.js';
import { interimGuard } from './interim-guard.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const timings: StoreTimings = {
  expirationMs: 60_000,
  inFlightReservationTimeoutMs: Number(env('IN_FLIGHT_MS')),
  cachePrefix: env('CACHE_PREFIX'),
};
const timeouts = {
  operationTimeoutMs: Number(env('OPERATION_TIMEOUT_MS')),
  connectTimeoutMs: 1000,
};
const makers: Record<string, () => IdempotencyKeyStore> = {
  postgres: () => new PostgresIdempotencyStore(env('STORE_URL'), timeouts, timings),
  mysql: () => new MySqlIdempotencyStore(env('STORE_URL'), timeouts, timings),
  redis: () => new RedisIdempotencyStore(env('STORE_URL'), timeouts, timings),
};
const store = makers[env('STORE')]!();
await store.start?.();

const sideEffects = new pg.Pool({ connectionString: env('SIDE_DB_URL'), max: 20 });
const app = express();
app.use(express.json());
app.post('/orders', interimGuard(store, '/ORDERS'), async (req, res) => {
  const key = req.get('x-idempotency-key');
  await sideEffects.query('insert into side_effects (idem_key, pid) values ($1, $2)', [
    key,
    process.pid,
  ]);
  const delay = Number(req.body?.delayMs ?? 0);
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  res.status(201).json({ key, pid: process.pid });
});

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
