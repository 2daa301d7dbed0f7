// Benchmark of the idempotency guard (not a test): throughput of an unguarded POST route, the
// same route guarded with a new key per request, and replays (CachedResult), side by side in one
// run; then memory per stored key in the memory store and its return to baseline after expiry.
//
//   npm run bench:idempotency
//   BENCH_DURATION=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=32 BENCH_KEYS=1000000 npm run bench:idempotency
//
// The server runs in a child process so the load generator does not share its event loop.
// The last line printed is one JSON object with the ratios; stores add their figures to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express from 'express';
import {
  addIdempotentKey,
  buildKeyInfo,
  requiredIdempotentKey,
  silentLogger,
  startApp,
} from '../runtime/src/idempotency/index.js';
import { MemoryIdempotencyStore } from '../runtime/src/idempotency/stores/memory.js';
import { benchStores, printStoreRows } from './idempotency-stores.js';

/** The part of autocannon's API used here (it ships no types). */
interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  setupRequest?: (request: LoadRequest) => LoadRequest;
}
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  method: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  body: string;
  requests: LoadRequest[];
}) => Promise<LoadResult>;

const self = fileURLToPath(import.meta.url);
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const DURATION_S = env('BENCH_DURATION', 5);
const ROUNDS = env('BENCH_ROUNDS', 3);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const KEYS = env('BENCH_KEYS', 1_000_000);
const MEMORY_EXPIRATION_MS = env('BENCH_MEMORY_EXPIRATION_MS', 20_000);
const BODY = JSON.stringify({ sku: 'ABC-123', quantity: 2, note: 'benchmark order' });

/** The app under test: one handler, mounted unguarded and guarded. */
async function serve(): Promise<void> {
  const app = express();
  app.use(express.json());
  addIdempotentKey(app, (options) => {
    options.logger = silentLogger;
    options.conflictHandling = 'CachedResult';
  });
  let id = 0;
  const create: express.RequestHandler = (req, res) => {
    res.status(201).json({ id: ++id, ...req.body });
  };
  app.post('/plain', create);
  // CPU time the server spent, read around each load: CPU per request is steadier than req/s on
  // a machine shared with other work.
  app.get('/__cpu', (_req, res) => {
    const { user, system } = process.cpuUsage();
    res.json({ micros: user + system });
  });
  app.post('/guarded', requiredIdempotentKey(), create);
  const server = await startApp(app, { port: 0, host: '127.0.0.1' });
  // Exit normally on SIGTERM, so `--cpu-prof` can write its profile when profiling this server.
  process.once('SIGTERM', () => process.exit(0));
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' ? address?.port : 0 })}\n`,
  );
}

/** Fills a memory store with `KEYS` completed keys, as the guard would, and reports bytes per key. */
async function measureMemory(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const used = () => {
    gc();
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  const baseline = used();
  const store = new MemoryIdempotencyStore({
    expirationMs: MEMORY_EXPIRATION_MS,
    // As in production, reservations end long before responses expire and are swept meanwhile.
    inFlightReservationTimeoutMs: 1000,
    cachePrefix: 'idem',
  });
  const started = Date.now();
  for (let i = 0; i < KEYS; i++) {
    const info = buildKeyInfo(`order-${i}-${started}`, 'POST', '/ORDERS', `user:${i % 1000}`);
    const check = await store.isKeyProcessed(info);
    if (check.processed) throw new Error('benchmark keys must be new');
    const now = Date.now();
    await store.markKeyAsProcessed(
      info,
      {
        statusCode: 201,
        body: Buffer.concat([Buffer.from(`{"id":${i},"sku":"ABC-123","quantity":2}`)]),
        contentType: 'application/json; charset=utf-8',
        createdAt: new Date(now),
        expiresAt: new Date(now + MEMORY_EXPIRATION_MS),
      },
      check.reservation,
    );
  }
  const filledAt = Date.now();
  const full = used();
  const heldKeys = store.size;
  // No store call from here on: only the store's own timer may free memory.
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, filledAt + MEMORY_EXPIRATION_MS + 1000 - Date.now())),
  );
  const after = used();
  process.stdout.write(
    `${JSON.stringify({ baseline, full, after, heldKeys, keysAfter: store.size, fillMs: filledAt - started })}\n`,
  );
}

function child(
  mode: string,
  nodeArgs: string[] = [],
): { proc: ChildProcess; line: Promise<string> } {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', self, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const first = out.split('\n').find((l) => l.startsWith('{'));
      if (first) resolve(first);
    });
    proc.once('exit', (code) => reject(new Error(`${mode} child exited with ${code}`)));
  });
  return { proc, line };
}

interface Scenario {
  readonly name: string;
  readonly path: string;
  /** Sets the key header per request; undefined sends none. */
  readonly key?: () => string;
}

interface Measured {
  rps: number;
  cpuMicrosPerRequest: number;
  p50: number;
  p99: number;
  errors: number;
}

const cpuMicros = async (base: string) =>
  ((await (await fetch(`${base}/__cpu`)).json()) as { micros: number }).micros;

async function load(base: string, scenario: Scenario): Promise<Measured> {
  const cpuBefore = await cpuMicros(base);
  const result = await autocannon({
    url: `${base}${scenario.path}`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { 'content-type': 'application/json' },
    body: BODY,
    requests: [
      {
        method: 'POST',
        path: scenario.path,
        setupRequest: (request) => {
          if (!scenario.key) return request;
          return {
            ...request,
            headers: { ...request.headers, 'x-idempotency-key': scenario.key() },
          };
        },
      },
    ],
  });
  const cpuAfter = await cpuMicros(base);
  return {
    rps: result.requests.average,
    cpuMicrosPerRequest: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const server = child('serve');
  const { port } = JSON.parse(await server.line) as { port: number };
  const base = `http://127.0.0.1:${port}`;
  let counter = 0;
  const run = Date.now().toString(36);
  const scenarios: Scenario[] = [
    { name: 'plain POST (unguarded)', path: '/plain' },
    { name: 'memory, new key each request', path: '/guarded', key: () => `${run}-${++counter}` },
    { name: 'memory, replay (CachedResult)', path: '/guarded', key: () => `${run}-replayed` },
  ];
  // Prime the replayed key, then warm up every route once.
  await fetch(`${base}/guarded`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-idempotency-key': `${run}-replayed` },
    body: BODY,
  });
  const samples = new Map<string, Measured[]>(scenarios.map((s) => [s.name, []]));
  process.stderr.write(
    `warming up, then ${ROUNDS} rounds of ${DURATION_S}s per scenario, ${CONNECTIONS} connections\n`,
  );
  for (const scenario of scenarios) await load(base, { ...scenario }).catch(() => undefined);
  // Rounds interleave the scenarios, so a disturbance on the machine hits all of them alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of scenarios) samples.get(scenario.name)!.push(await load(base, scenario));
  }
  server.proc.kill('SIGTERM');

  const rows = scenarios.map((scenario) => {
    const list = samples.get(scenario.name)!;
    return {
      scenario: scenario.name,
      rps: median(list.map((m) => m.rps)),
      cpu: median(list.map((m) => m.cpuMicrosPerRequest)),
      p50: median(list.map((m) => m.p50)),
      p99: median(list.map((m) => m.p99)),
      errors: list.reduce((sum, m) => sum + m.errors, 0),
    };
  });
  const plain = rows[0]!.rps;
  console.log('\nthroughput (median of rounds)');
  console.table(
    rows.map((row) => ({
      scenario: row.scenario,
      'req/s': Math.round(row.rps),
      'vs plain': (row.rps / plain).toFixed(3),
      'server CPU µs/req': row.cpu.toFixed(1),
      'CPU vs plain': (rows[0]!.cpu / row.cpu).toFixed(3),
      'p50 ms': row.p50,
      'p99 ms': row.p99,
      'non-2xx/errors': row.errors,
    })),
  );

  process.stderr.write(
    `filling a memory store with ${KEYS} keys (expiration ${MEMORY_EXPIRATION_MS} ms)\n`,
  );
  const memory = child('memory', ['--expose-gc']);
  const m = JSON.parse(await memory.line) as {
    baseline: number;
    full: number;
    after: number;
    heldKeys: number;
    keysAfter: number;
    fillMs: number;
  };
  const perKey = (m.full - m.baseline) / KEYS;
  console.log('\nmemory store');
  console.table([
    { measure: 'keys stored', value: m.heldKeys },
    { measure: 'bytes per stored key', value: Math.round(perKey) },
    { measure: `total for ${KEYS} keys (MB)`, value: ((m.full - m.baseline) / 1e6).toFixed(1) },
    { measure: 'keys left after expiration', value: m.keysAfter },
    {
      measure: 'MB above baseline after expiration',
      value: ((m.after - m.baseline) / 1e6).toFixed(2),
    },
  ]);

  // PostgreSQL, MySQL and Redis stores (bench/idempotency-stores.ts); BENCH_STORES=0 skips them.
  const stores = process.env.BENCH_STORES === '0' ? undefined : await benchStores();
  if (stores) printStoreRows(stores);

  const summary = {
    memory_new_vs_plain: Number((rows[1]!.rps / plain).toFixed(3)),
    memory_replay_vs_plain: Number((rows[2]!.rps / plain).toFixed(3)),
    memory_new_vs_plain_cpu: Number((rows[0]!.cpu / rows[1]!.cpu).toFixed(3)),
    memory_replay_vs_plain_cpu: Number((rows[0]!.cpu / rows[2]!.cpu).toFixed(3)),
    plain_rps: Math.round(plain),
    memory_new_rps: Math.round(rows[1]!.rps),
    memory_replay_rps: Math.round(rows[2]!.rps),
    memory_bytes_per_key: Math.round(perKey),
    memory_keys: KEYS,
    memory_keys_after_expiration: m.keysAfter,
    memory_bytes_above_baseline_after_expiration: m.after - m.baseline,
    duration_s: DURATION_S,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    ...stores?.json,
  };
  console.log(JSON.stringify(summary));
}

const mode = process.argv[2];
if (mode === 'serve') await serve();
else if (mode === 'memory') await measureMemory();
else await main();
