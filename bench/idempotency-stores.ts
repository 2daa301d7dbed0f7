// Store part of the idempotency benchmark: guarded-route throughput on PostgreSQL, MySQL and
// Redis beside the unguarded route in the same run, and store round trips per operation counted
// on the wire (through a TCP proxy that counts request bursts). Runs alone or from
// bench/idempotency.ts, which prints the JSON line.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import express, { type RequestHandler } from 'express';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createClient } from 'redis';
import type { IdempotencyKeyStore, StoreTimings } from '../runtime/src/idempotency/store.js';
import { MySqlIdempotencyStore } from '../runtime/src/idempotency/stores/mysql-store.js';
import { PostgresIdempotencyStore } from '../runtime/src/idempotency/stores/postgres-store.js';
import { RedisIdempotencyStore } from '../runtime/src/idempotency/stores/redis-store.js';
import { conformanceKeyInfo } from '../runtime/src/testing/index.js';
import { serviceUrls, uniqueName, withDatabase } from '../test/support/services.js';
import { TcpProxy } from '../test/runtime/stores/support/tcp-proxy.js';
import {
  requiredIdempotentKey,
  silentLogger,
  startApp,
  type ConfigureIdempotency,
} from '@slicekit/runtime/idempotency';
import { addIdempotencyWithMySqlStore } from '@slicekit/runtime/idempotency/mysql';
import { addIdempotencyWithPostgresStore } from '@slicekit/runtime/idempotency/postgres';
import { addIdempotencyWithRedisStore } from '@slicekit/runtime/idempotency/redis';

export type StoreKind = 'postgres' | 'mysql' | 'redis';
export const storeKinds: readonly StoreKind[] = ['postgres', 'mysql', 'redis'];

interface AutocannonResult {
  requests: { average: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const timings: StoreTimings = {
  expirationMs: 60 * 60_000,
  inFlightReservationTimeoutMs: 30_000,
  cachePrefix: `bench-${Date.now().toString(36)}`,
};

/** A database (or Redis prefix) of the benchmark's own, removed afterwards. */
interface Backend {
  readonly url: string;
  drop(): Promise<void>;
}

async function backendFor(kind: StoreKind): Promise<Backend> {
  const name = uniqueName('bench');
  if (kind === 'postgres') {
    const admin = new pg.Client({ connectionString: serviceUrls.postgres });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    await admin.end();
    return {
      url: withDatabase(serviceUrls.postgres, name),
      async drop() {
        const client = new pg.Client({ connectionString: serviceUrls.postgres });
        await client.connect();
        await client.query(`drop database if exists "${name}" with (force)`);
        await client.end();
      },
    };
  }
  if (kind === 'mysql') {
    const admin = await mysql.createConnection({ uri: serviceUrls.mysql });
    await admin.query(`create database \`${name}\` character set utf8mb4`);
    await admin.end();
    return {
      url: withDatabase(serviceUrls.mysql, name),
      async drop() {
        const client = await mysql.createConnection({ uri: serviceUrls.mysql });
        await client.query(`drop database if exists \`${name}\``);
        await client.end();
      },
    };
  }
  return {
    url: serviceUrls.redis,
    async drop() {
      const client = createClient({ url: serviceUrls.redis });
      await client.connect();
      for await (const keys of client.scanIterator({
        MATCH: `${timings.cachePrefix}:*`,
        COUNT: 500,
      })) {
        const batch = ([] as string[]).concat(keys);
        if (batch.length > 0) await client.del(batch);
      }
      await client.close();
    },
  };
}

function makeStore(kind: StoreKind, url: string): IdempotencyKeyStore {
  if (kind === 'postgres') return new PostgresIdempotencyStore(url, { createTable: true }, timings);
  if (kind === 'mysql') return new MySqlIdempotencyStore(url, { createTable: true }, timings);
  return new RedisIdempotencyStore(url, {}, timings);
}

/** Round trips per store operation, counted on the wire over `samples` operations each. */
async function countRoundTrips(kind: StoreKind, url: string, samples = 200) {
  const target = new URL(url);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port) });
  const store = makeStore(kind, proxy.url(url));
  await store.start?.();
  const response = {
    statusCode: 201,
    body: Buffer.from('{"ok":true}'),
    contentType: 'application/json',
    createdAt: new Date(),
    expiresAt: null,
  };
  try {
    const keys = Array.from({ length: samples }, () => conformanceKeyInfo(randomUUID()));
    // Warm up: connections open and statements prepared before counting.
    for (const key of keys.slice(0, 5)) {
      const check = await store.isKeyProcessed(key);
      if (!check.processed) await store.markKeyAsProcessed(key, response, check.reservation);
    }
    const counted = keys.slice(5);
    const reservations: string[] = [];
    proxy.resetRoundTrips();
    for (const key of counted) {
      const check = await store.isKeyProcessed(key);
      if (check.processed) throw new Error('benchmark key unexpectedly processed');
      reservations.push(check.reservation);
    }
    const reserve = proxy.roundTrips / counted.length;
    proxy.resetRoundTrips();
    for (const [i, key] of counted.entries())
      await store.markKeyAsProcessed(key, response, reservations[i]!);
    const complete = proxy.roundTrips / counted.length;
    proxy.resetRoundTrips();
    for (const key of counted) await store.isKeyProcessed(key);
    const replay = proxy.roundTrips / counted.length;
    return { reserve, complete, replay };
  } finally {
    await store.close?.();
    await proxy.close();
  }
}

async function throughput(url: string, path: string, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `${url}${path}`,
    connections: 20,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"name":"widget"}',
        // A new key per request: the cost of reserving and completing, never a replay.
        setupRequest: (request: { headers: Record<string, string> }) => {
          request.headers = { ...request.headers, 'x-idempotency-key': randomUUID() };
          return request;
        },
      },
    ],
  });
}

export interface StoreBenchResult {
  /** Rows for the human-readable table. */
  readonly rows: { route: string; requestsPerSecond: number; ratio: number }[];
  /** Keys for the final JSON line. */
  readonly json: Record<string, number>;
}

/**
 * Measures every store: guarded throughput beside the unguarded route (same app, same run), and
 * round trips per reserve, complete and replay.
 */
export async function benchStores(options: { seconds?: number } = {}): Promise<StoreBenchResult> {
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 3);
  const backends = new Map<StoreKind, Backend>();
  const servers: Server[] = [];
  const handler: RequestHandler = (req, res) => {
    res.status(201).json({ id: randomUUID(), name: req.body?.name });
  };
  const listen = async (app: express.Express) => {
    const server = await startApp(app, { port: 0, host: '127.0.0.1' });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  try {
    const plainApp = express();
    plainApp.use(express.json());
    plainApp.post('/orders', handler);
    const plainUrl = await listen(plainApp);
    // One app per store, registered the way an application would, with the same handler.
    const guardedUrls = new Map<StoreKind, string>();
    for (const kind of storeKinds) {
      const backend = await backendFor(kind);
      backends.set(kind, backend);
      const app = express();
      app.use(express.json());
      const connection = { connection: backend.url, createTable: true };
      const configure: ConfigureIdempotency = (o) => {
        o.cachePrefix = timings.cachePrefix;
        o.logger = silentLogger;
      };
      if (kind === 'postgres') addIdempotencyWithPostgresStore(app, connection, configure);
      else if (kind === 'mysql') addIdempotencyWithMySqlStore(app, connection, configure);
      else addIdempotencyWithRedisStore(app, { connection: backend.url }, configure);
      app.post('/orders', requiredIdempotentKey(), handler);
      guardedUrls.set(kind, await listen(app));
    }
    // Plain first and last: the ratio uses their mean, so drift during the run cancels out.
    const plainBefore = await throughput(plainUrl, '/orders', seconds);
    const guarded = new Map<StoreKind, AutocannonResult>();
    for (const kind of storeKinds) {
      guarded.set(kind, await throughput(guardedUrls.get(kind)!, '/orders', seconds));
    }
    const plainAfter = await throughput(plainUrl, '/orders', seconds);
    const plain = (plainBefore.requests.average + plainAfter.requests.average) / 2;
    const rows = [{ route: 'unguarded', requestsPerSecond: plain, ratio: 1 }];
    const json: Record<string, number> = {};
    for (const kind of storeKinds) {
      const result = guarded.get(kind)!;
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${kind}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
      }
      const ratio = result.requests.average / plain;
      rows.push({ route: `guarded, ${kind}`, requestsPerSecond: result.requests.average, ratio });
      json[`${kind}_new_vs_plain`] = Number(ratio.toFixed(3));
    }
    for (const kind of storeKinds) {
      const trips = await countRoundTrips(kind, backends.get(kind)!.url);
      json[`${kind}_roundtrips_reserve`] = trips.reserve;
      json[`${kind}_roundtrips_complete`] = trips.complete;
      json[`${kind}_roundtrips_replay`] = trips.replay;
    }
    return { rows, json };
  } finally {
    // Closing a server started by startApp also closes its store.
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await Promise.all([...backends.values()].map((backend) => backend.drop()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchStores();
  for (const row of result.rows) {
    console.log(
      `${row.route.padEnd(20)} ${row.requestsPerSecond.toFixed(0).padStart(8)} req/s  x${row.ratio.toFixed(3)}`,
    );
  }
  console.log(JSON.stringify(result.json));
}
