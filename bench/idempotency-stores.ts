// Store part of the idempotency benchmark: guarded-route throughput on PostgreSQL, MySQL and
// Redis (the PostgreSQL and MySQL store on the app's Knex instance) beside
// the unguarded route in the same run, and store round trips per operation counted
// on the wire (through a TCP proxy that counts request bursts). Runs alone
// (`node --import tsx bench/idempotency-stores.ts`) or from bench/idempotency.ts, which adds its
// keys to the final JSON line. The apps run in a child process, away from the load generator.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createClient } from 'redis';
import type { IdempotencyKeyStore, StoreTimings } from '../runtime/src/idempotency/store.js';
import { KnexIdempotencyStore } from '../runtime/src/idempotency/stores/knex-store.js';
import { RedisIdempotencyStore } from '../runtime/src/idempotency/stores/redis-store.js';
import { conformanceKeyInfo } from '../runtime/src/testing/index.js';
import { loadPair } from './paired.js';
import { baselineCommit, loadBaseline } from './idempotency-baseline.js';
import { serviceUrls, uniqueName, withDatabase } from '../test/support/services.js';
import { TcpProxy } from '../test/runtime/stores/support/tcp-proxy.js';
// Relative imports: `npm run bench:idempotency` runs without the slicekit-source condition.
import {
  addIdempotentKeyWithStore,
  requiredIdempotentKey,
  silentLogger,
  startApp,
  type ConfigureIdempotency,
} from '../runtime/src/idempotency/index.js';
import {
  addIdempotencyWithKnexStore,
  idempotencyKeysMigration,
} from '../runtime/src/idempotency/stores/knex.js';
import { addIdempotencyWithRedisStore } from '../runtime/src/idempotency/stores/redis.js';

export type StoreKind = 'postgres' | 'mysql' | 'redis';
const baselineKinds = ['postgres', 'mysql'] as const;
export const storeKinds: readonly StoreKind[] = ['postgres', 'mysql', 'redis'];

/**
 * A Knex instance configured as a generated app's (pool of 10; MySQL connections accept one
 * statement per query), with the key table its migration makes.
 */
async function appKnex(kind: 'postgres' | 'mysql', url: string): Promise<Knex> {
  const knex = knexFactory(
    kind === 'postgres'
      ? { client: 'pg', connection: url, pool: { min: 0, max: 10 } }
      : {
          client: 'mysql2',
          connection: { uri: url, charset: 'utf8mb4' },
          pool: { min: 0, max: 10 },
        },
  );
  await idempotencyKeysMigration().up(knex);
  return knex;
}

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

async function makeStore(kind: StoreKind, url: string): Promise<IdempotencyKeyStore> {
  if (kind === 'postgres' || kind === 'mysql') {
    const knex = await appKnex(kind, url);
    const store = new KnexIdempotencyStore(knex, {}, timings);
    // The app would destroy its Knex at shutdown; here the store's close does too.
    const closeStore = store.close.bind(store);
    return Object.assign(store, {
      close: async () => {
        await closeStore();
        await knex.destroy();
      },
    });
  }
  return new RedisIdempotencyStore(url, {}, timings);
}

/** Round trips per store operation, counted on the wire over `samples` operations each. */
async function countRoundTrips(kind: StoreKind, url: string, samples = 200) {
  const target = new URL(url);
  const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port) });
  const store = await makeStore(kind, proxy.url(url));
  await store.start?.();
  const response = {
    statusCode: 201,
    body: Buffer.from('{"ok":true}'),
    contentType: 'application/json',
    headers: [],
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

const self = fileURLToPath(import.meta.url);
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function throughput(url: string, path: string, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `${url}${path}`,
    connections: env('BENCH_CONNECTIONS', 32),
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

const handler: RequestHandler = (req, res) => {
  res.status(201).json({ id: randomUUID(), ...req.body });
};

/** Child-process mode: the unguarded app and one guarded app per store; prints their ports. */
async function serveStores(): Promise<void> {
  const urls = JSON.parse(process.env.BENCH_STORE_URLS ?? '{}') as Record<StoreKind, string>;
  const listen = async (app: express.Express) => {
    const server = await startApp(app, { port: 0, host: '127.0.0.1' });
    return (server.address() as AddressInfo).port;
  };
  const plain = express();
  plain.use(express.json());
  plain.post('/orders', handler);
  const ports: Record<string, number> = { plain: await listen(plain) };
  const configure: ConfigureIdempotency = (options) => {
    options.cachePrefix = timings.cachePrefix;
    options.logger = silentLogger;
  };
  // One app per store, registered the way an application would, with the same handler.
  for (const kind of storeKinds) {
    const app = express();
    app.use(express.json());
    if (kind === 'redis') addIdempotencyWithRedisStore(app, urls[kind], configure);
    else addIdempotencyWithKnexStore(app, await appKnex(kind, urls[kind]), configure);
    app.post('/orders', requiredIdempotentKey(), handler);
    ports[kind] = await listen(app);
  }
  // The old pool-based stores of BENCH_BASELINE's commit, behind the same guard and handler.
  const commit = baselineCommit();
  if (commit) {
    const baseline = await loadBaseline(commit);
    for (const kind of baselineKinds) {
      const app = express();
      app.use(express.json());
      addIdempotentKeyWithStore(app, (t) => baseline.make(kind, urls[kind], t), configure);
      app.post('/orders', requiredIdempotentKey(), handler);
      ports[`${kind}-old`] = await listen(app);
    }
    process.once('exit', () => baseline.remove());
  }
  process.stdout.write(`${JSON.stringify({ ports })}\n`);
}

function startServers(urls: Record<StoreKind, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', self, 'serve-stores'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_STORE_URLS: JSON.stringify(urls) },
  });
  const ports = new Promise<Record<string, number>>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((candidate) => candidate.startsWith('{"ports"'));
      if (line) resolve((JSON.parse(line) as { ports: Record<string, number> }).ports);
    });
    child.once('exit', (code) => reject(new Error(`store servers exited with ${code}`)));
  });
  return { child, ports };
}

/**
 * Measures every store: guarded throughput beside the unguarded route (paired loads, medians of
 * the per-pair ratios), and round trips per reserve, complete and replay.
 */
export async function benchStores(
  options: { seconds?: number; rounds?: number } = {},
): Promise<StoreBenchResult> {
  const seconds = options.seconds ?? env('BENCH_DURATION', 2);
  const rounds = options.rounds ?? env('BENCH_ROUNDS', 5);
  const backends = new Map<StoreKind, Backend>();
  try {
    for (const kind of storeKinds) backends.set(kind, await backendFor(kind));
    const urls = Object.fromEntries(storeKinds.map((kind) => [kind, backends.get(kind)!.url]));
    const servers = startServers(urls as Record<StoreKind, string>);
    // Paired, as the guard's own loads (bench/paired.ts): each store's route right beside the
    // unguarded one, its ratio the median of its per-pair ratios.
    const plainSamples: number[] = [];
    const ratios = new Map<StoreKind, number[]>(storeKinds.map((kind) => [kind, []]));
    const stored = new Map<StoreKind, number[]>(storeKinds.map((kind) => [kind, []]));
    const oldSamples = new Map<string, number[]>(baselineKinds.map((kind) => [kind, []]));
    const versusOld = new Map<string, number[]>(baselineKinds.map((kind) => [kind, []]));
    try {
      const ports = await servers.ports;
      const load = async (route: string, duration: number) => {
        const result = await throughput(`http://127.0.0.1:${ports[route]}`, '/orders', duration);
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${route}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
        }
        return result.requests.average;
      };
      const old = baselineCommit() ? baselineKinds.map((kind) => `${kind}-old`) : [];
      for (const route of ['plain', ...storeKinds, ...old]) await load(route, 1); // warm-up
      for (let round = 0; round < rounds; round++) {
        for (const kind of storeKinds) {
          const pair = await loadPair(
            round,
            () => load('plain', seconds),
            () => load(kind, seconds),
          );
          plainSamples.push(pair.plain);
          stored.get(kind)!.push(pair.guarded);
          ratios.get(kind)!.push(pair.guarded / pair.plain);
        }
        // With a baseline: each store on the app's Knex right beside the old pool-based one.
        if (baselineCommit()) {
          for (const kind of baselineKinds) {
            const pair = await loadPair(
              round,
              () => load(`${kind}-old`, seconds),
              () => load(kind, seconds),
            );
            oldSamples.get(kind)!.push(pair.plain);
            versusOld.get(kind)!.push(pair.guarded / pair.plain);
          }
        }
      }
    } finally {
      servers.child.kill('SIGTERM');
    }
    const rows = [{ route: 'unguarded', requestsPerSecond: median(plainSamples), ratio: 1 }];
    const json: Record<string, number> = {};
    for (const kind of storeKinds) {
      const ratio = median(ratios.get(kind)!);
      rows.push({
        route: `${kind}, new key each request`,
        requestsPerSecond: median(stored.get(kind)!),
        ratio,
      });
      json[`${kind}_new_vs_plain`] = Number(ratio.toFixed(3));
    }
    for (const kind of baselineKinds) {
      if (versusOld.get(kind)!.length === 0) continue;
      const ratio = median(versusOld.get(kind)!);
      rows.push({
        route: `${kind}, old pool-based store (${baselineCommit()})`,
        requestsPerSecond: median(oldSamples.get(kind)!),
        ratio: median(oldSamples.get(kind)!) / median(plainSamples),
      });
      json[`${kind}_knex_vs_old`] = Number(ratio.toFixed(3));
    }
    for (const kind of storeKinds) {
      const trips = await countRoundTrips(kind, backends.get(kind)!.url);
      json[`${kind}_roundtrips_reserve`] = trips.reserve;
      json[`${kind}_roundtrips_complete`] = trips.complete;
      json[`${kind}_roundtrips_replay`] = trips.replay;
    }
    return { rows, json };
  } finally {
    await Promise.all([...backends.values()].map((backend) => backend.drop()));
  }
}

/** Prints the store table; the caller prints the JSON line. */
export function printStoreRows(result: StoreBenchResult): void {
  console.log(
    '\nstores: throughput (medians; ratios per pair with the unguarded route) and round trips on the wire',
  );
  console.table(
    result.rows.map((row) => ({
      scenario: row.route,
      'req/s': Math.round(row.requestsPerSecond),
      'vs plain': row.ratio.toFixed(3),
    })),
  );
  for (const kind of baselineKinds) {
    const ratio = result.json[`${kind}_knex_vs_old`];
    if (ratio !== undefined) console.log(`${kind}: Knex store / old pool-based store ${ratio}`);
  }
  console.table(
    storeKinds.map((kind) => ({
      store: kind,
      'reserve round trips': result.json[`${kind}_roundtrips_reserve`],
      'complete round trips': result.json[`${kind}_roundtrips_complete`],
      'replay round trips': result.json[`${kind}_roundtrips_replay`],
    })),
  );
}

if (process.argv[1] === self) {
  if (process.argv[2] === 'serve-stores') {
    await serveStores();
  } else {
    const result = await benchStores();
    printStoreRows(result);
    console.log(JSON.stringify(result.json));
  }
}
