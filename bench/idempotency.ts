// Benchmark of the idempotency guard (not a test): throughput of an unguarded POST route, the
// same route guarded with a new key per request, and replays (CachedResult), side by side in one
// run, for two handlers: one that only echoes the body (the guard's whole cost shows) and one
// that inserts the order through Knex into SQLite (a create route as slicekit generates them).
// Then memory per stored key in the memory store and its return to baseline after expiry.
//
//   npm run bench:idempotency
//   BENCH_DURATION=2 BENCH_ROUNDS=5 BENCH_CONNECTIONS=32 BENCH_KEYS=1000000 npm run bench:idempotency
//   BENCH_BASELINE=/path/to/other/runtime/dist/idempotency/index.js npm run bench:idempotency
//     (adds that build's guard on the same routes, in the same rounds: a before/after)
//
// The server runs in a child process so the load generator does not share its event loop, and it
// runs the compiled runtime (runtime/dist, what apps run; the npm script builds it first): the
// TypeScript sources under tsx carry esbuild's name-keeping wrappers on every closure.
// The last line printed is one JSON object with the ratios; stores add their figures to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildKeyInfo } from '../runtime/src/idempotency/index.js';
import { MemoryIdempotencyStore } from '../runtime/src/idempotency/stores/memory.js';
import { PEERS, checkDeduplicates, mountPeers } from './idempotency-peers.js';
import { KeepNothingStore } from './keep-nothing-store.js';
import { ordersTable } from './orders-table.js';
import { loadPair } from './paired.js';
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
const DURATION_S = env('BENCH_DURATION', 2);
const ROUNDS = env('BENCH_ROUNDS', 5);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const KEYS = env('BENCH_KEYS', 1_000_000);
const MEMORY_EXPIRATION_MS = env('BENCH_MEMORY_EXPIRATION_MS', 20_000);
const BODY = JSON.stringify({ sku: 'ABC-123', quantity: 2, note: 'benchmark order' });

/**
 * The app under test: two handlers, each mounted unguarded and guarded. `/echo` answers the body
 * it got; `/orders` inserts it through Knex into an in-memory SQLite table (CPU work only, no
 * disk wait) and answers the stored row, as a generated create route does.
 */
async function serve(): Promise<void> {
  // The package name resolves to runtime/dist here: this child runs without the
  // slicekit-source condition.
  const {
    addIdempotentKey,
    addIdempotentKeyWithStore,
    requiredIdempotentKey,
    silentLogger,
    startApp,
  } =
    (await import('@slicekit/runtime/idempotency')) as typeof import('../runtime/src/idempotency/index.js');
  const orders = await ordersTable();
  const app = express();
  app.use(express.json());
  addIdempotentKey(app, (options) => {
    options.logger = silentLogger;
    options.conflictHandling = 'CachedResult';
  });
  let id = 0;
  // Handler runs, read by the deduplication check before anything is measured.
  let runs = 0;
  const echoBody = (body: Record<string, unknown>) => {
    runs++;
    return { id: ++id, ...body };
  };
  const createBody = (body: Record<string, unknown>) => {
    runs++;
    return orders.insert(body);
  };
  const echo: express.RequestHandler = (req, res) => {
    res.status(201).json(echoBody(req.body as Record<string, unknown>));
  };
  const createOrder: express.RequestHandler = async (req, res) => {
    res.status(201).json(await createBody(req.body as Record<string, unknown>));
  };
  mountPeers(app, { echo: echoBody, create: createBody });
  app.get('/__runs', (_req, res) => void res.json({ runs }));
  app.post('/echo', echo);
  app.post('/echo/guarded', requiredIdempotentKey(), echo);
  app.post('/orders', createOrder);
  app.post('/orders/guarded', requiredIdempotentKey(), createOrder);
  // CPU time the server spent, read around each load: CPU per request is steadier than req/s on
  // a machine shared with other work.
  const cpu: express.RequestHandler = (_req, res) => {
    const { user, system } = process.cpuUsage();
    res.json({ micros: user + system });
  };
  app.get('/__cpu', cpu);

  // The guard's floor: the same guarded echo route on an app whose store keeps nothing (every key
  // is new, nothing is stored), so the guard's own work shows apart from the memory store's.
  const floor = express();
  floor.use(express.json());
  addIdempotentKeyWithStore(floor, new KeepNothingStore(), (options) => {
    options.logger = silentLogger;
  });
  floor.post('/echo/guarded', requiredIdempotentKey(), echo);
  floor.get('/__cpu', cpu);

  // BENCH_BASELINE=<another build's dist/idempotency/index.js>: the same guarded routes on that
  // build's guard, on an app of their own in this same process, measured in the same rounds: a
  // before/after under the same load.
  let baseline: Promise<Server> | undefined;
  if (process.env.BENCH_BASELINE) {
    const other = (await import(
      pathToFileURL(process.env.BENCH_BASELINE).href
    )) as typeof import('../runtime/src/idempotency/index.js');
    const before = express();
    before.use(express.json());
    other.addIdempotentKey(before, (options) => {
      options.logger = other.silentLogger;
      options.conflictHandling = 'CachedResult';
    });
    // Its own unguarded routes, just before the guarded ones as on the main app: Express walks
    // an app's routes in order, so a route behind the main app's twenty costs more to reach.
    before.post('/echo', echo);
    before.post('/echo/guarded', other.requiredIdempotentKey(), echo);
    before.post('/orders', createOrder);
    before.post('/orders/guarded', other.requiredIdempotentKey(), createOrder);
    before.get('/__cpu', cpu);
    baseline = other.startApp(before, { port: 0, host: '127.0.0.1' });
  }

  const portOf = (server: Server) => (server.address() as AddressInfo).port;
  const servers = await Promise.all(
    [app, floor].map((a) => startApp(a, { port: 0, host: '127.0.0.1' })),
  );
  const baselinePort = baseline ? portOf(await baseline) : undefined;
  // Exit normally on SIGTERM, so `--cpu-prof` can write its profile when profiling this server.
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(
    `${JSON.stringify({ port: portOf(servers[0]!), floorPort: portOf(servers[1]!), baselinePort })}\n`,
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
        headers: [],
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
  /** The server: the main app, or the one whose store keeps nothing. */
  readonly base: string;
  readonly path: string;
  /** The unguarded scenario this one is compared with; none for an unguarded one. */
  readonly against?: Scenario;
  /** The key header of each request. Unguarded routes get one too, so every scenario sends the same bytes. */
  readonly key: () => string;
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

async function load(scenario: Scenario): Promise<Measured> {
  const { base } = scenario;
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
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'x-idempotency-key': scenario.key() },
        }),
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
  // A failed check must not leave the server process behind.
  process.once('exit', () => server.proc.kill('SIGTERM'));
  const ports = JSON.parse(await server.line) as {
    port: number;
    floorPort: number;
    baselinePort?: number;
  };
  const base = `http://127.0.0.1:${ports.port}`;
  let counter = 0;
  const run = Date.now().toString(36);
  const newKey = () => `${run}-${++counter}`;
  // One replayed key per route and server, primed before the loads.
  const replayed = new Map<string, () => string>();
  const replayedKey = (path: string, server = base) => {
    const url = `${server}${path}`;
    let key = replayed.get(url);
    if (!key) replayed.set(url, (key = () => `${run}-replayed${path.replaceAll('/', '-')}`));
    return key;
  };
  const echo: Scenario = { name: 'echo: plain POST (unguarded)', base, path: '/echo', key: newKey };
  const create: Scenario = {
    name: 'create: plain POST (unguarded)',
    base,
    path: '/orders',
    key: newKey,
  };
  const scenarios: Scenario[] = [
    echo,
    {
      name: 'echo: memory, new key each request',
      base,
      path: '/echo/guarded',
      key: newKey,
      against: echo,
    },
    {
      name: 'echo: memory, replay (CachedResult)',
      base,
      path: '/echo/guarded',
      key: replayedKey('/echo/guarded'),
      against: echo,
    },
    {
      name: 'echo: store keeping nothing, new key',
      base: `http://127.0.0.1:${ports.floorPort}`,
      path: '/echo/guarded',
      key: newKey,
      against: echo,
    },
    create,
    {
      name: 'create: memory, new key each request',
      base,
      path: '/orders/guarded',
      key: newKey,
      against: create,
    },
    {
      name: 'create: memory, replay (CachedResult)',
      base,
      path: '/orders/guarded',
      key: replayedKey('/orders/guarded'),
      against: create,
    },
  ];
  // The peers, on the same two handlers: new key and replay on each (idempotency-peers.ts).
  const peerScenarios = PEERS.flatMap((peer) =>
    (
      [
        ['echo', echo],
        ['orders', create],
      ] as const
    ).flatMap(([route, plain]) => {
      const path = `/${route}/${peer}`;
      const label = route === 'echo' ? 'echo' : 'create';
      return [
        { name: `${label}: ${peer}, new key`, base, path, key: newKey, against: plain },
        {
          name: `${label}: ${peer}, replay`,
          base,
          path,
          key: replayedKey(path),
          against: plain,
        },
      ];
    }),
  );
  scenarios.push(...peerScenarios);
  // The build named by BENCH_BASELINE, on the same two routes, new key and replay.
  const before = ports.baselinePort ? `http://127.0.0.1:${ports.baselinePort}` : undefined;
  // Each against the same handler unguarded on the baseline's own app, at the same place in its
  // route list as on the main app.
  const baselineScenarios: Scenario[] = [];
  for (const [label, route] of before
    ? ([
        ['echo', '/echo'],
        ['create', '/orders'],
      ] as const)
    : []) {
    const path = `${route}/guarded`;
    const plain: Scenario = {
      name: `${label}: baseline build, plain POST (unguarded)`,
      base: before!,
      path: route,
      key: newKey,
    };
    baselineScenarios.push(
      plain,
      {
        name: `${label}: baseline build, new key`,
        base: before!,
        path,
        key: newKey,
        against: plain,
      },
      {
        name: `${label}: baseline build, replay`,
        base: before!,
        path,
        key: replayedKey(path, before),
        against: plain,
      },
    );
  }
  scenarios.push(...baselineScenarios);
  // Every guard must deduplicate before it is measured; then prime each replayed key.
  const handlerRuns = async () =>
    ((await (await fetch(`${base}/__runs`)).json()) as { runs: number }).runs;
  for (const path of ['/echo/guarded', '/orders/guarded', ...peerScenarios.map((s) => s.path)]) {
    await checkDeduplicates(base, path, BODY, handlerRuns);
  }
  if (before) {
    for (const path of ['/echo/guarded', '/orders/guarded']) {
      await checkDeduplicates(before, path, BODY, handlerRuns);
    }
  }
  for (const [url, key] of replayed) {
    const primed = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-idempotency-key': key() },
      body: BODY,
    });
    if (primed.status !== 201) throw new Error(`priming ${url} answered ${primed.status}`);
  }
  process.stderr.write(`every guard deduplicates (${replayed.size} routes checked)\n`);
  // Paired loads (bench/paired.ts): each guarded scenario beside its unguarded route, its ratios
  // taken per pair, then the median over rounds. What drifts during a run (the heap every stored
  // key grows, the machine's other work) then falls on both sides of a pair alike instead of on
  // whichever scenario runs later.
  const samples = new Map<Scenario, Measured[]>(scenarios.map((s) => [s, []]));
  const guardedScenarios = scenarios.filter((s) => s.against !== undefined);
  const pairs = new Map(
    guardedScenarios.map((s) => [s, [] as { plain: Measured; guarded: Measured }[]]),
  );
  process.stderr.write(
    `warming up, then ${ROUNDS} rounds of ${guardedScenarios.length} paired ${DURATION_S}s loads, ${CONNECTIONS} connections\n`,
  );
  for (const scenario of scenarios) await load(scenario).catch(() => undefined);
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of guardedScenarios) {
      const pair = await loadPair(
        round,
        () => load(scenario.against!),
        () => load(scenario),
      );
      samples.get(scenario.against!)!.push(pair.plain);
      samples.get(scenario)!.push(pair.guarded);
      pairs.get(scenario)!.push(pair);
    }
  }
  server.proc.kill('SIGTERM');

  const measured = new Map(
    scenarios.map((scenario) => {
      const list = samples.get(scenario)!;
      const row = {
        rps: median(list.map((m) => m.rps)),
        cpu: median(list.map((m) => m.cpuMicrosPerRequest)),
        p50: median(list.map((m) => m.p50)),
        p99: median(list.map((m) => m.p99)),
        errors: list.reduce((sum, m) => sum + m.errors, 0),
      };
      return [scenario, row] as const;
    }),
  );
  /** Throughput and CPU ratios of a scenario to its unguarded route, and the CPU it adds: medians over its pairs. */
  const against = (scenario: Scenario) => {
    const list = pairs.get(scenario);
    if (!list) return { rps: 1, cpu: 1, addedMicros: 0 };
    return {
      rps: Number(median(list.map((p) => p.guarded.rps / p.plain.rps)).toFixed(3)),
      cpu: Number(
        median(
          list.map((p) => p.plain.cpuMicrosPerRequest / p.guarded.cpuMicrosPerRequest),
        ).toFixed(3),
      ),
      addedMicros: Number(
        median(
          list.map((p) => p.guarded.cpuMicrosPerRequest - p.plain.cpuMicrosPerRequest),
        ).toFixed(1),
      ),
    };
  };
  console.log(
    '\nthroughput (median of rounds; guarded rows: median of their ratios to the unguarded route measured beside them)',
  );
  console.table(
    scenarios.map((scenario) => {
      const row = measured.get(scenario)!;
      const ratio = against(scenario);
      return {
        scenario: scenario.name,
        'req/s': Math.round(row.rps),
        'vs plain': ratio.rps.toFixed(3),
        'server CPU µs/req': row.cpu.toFixed(1),
        'CPU vs plain': ratio.cpu.toFixed(3),
        'added CPU µs/req': ratio.addedMicros.toFixed(1),
        'p50 ms': row.p50,
        'p99 ms': row.p99,
        'non-2xx/errors': row.errors,
      };
    }),
  );
  const [echoNew, echoReplay, echoFloor, createNew, createReplay] = [1, 2, 3, 5, 6].map((i) =>
    against(scenarios[i]!),
  );
  // <peer>_new_vs_plain and <peer>_replay_vs_plain on echo, <peer>_create_* on create, and the
  // CPU each adds for a new key.
  const peers: Record<string, number> = {};
  for (const scenario of peerScenarios) {
    const [label, rest] = scenario.name.split(': ') as [string, string];
    const [peer, kind] = rest.split(', ') as [string, string];
    const prefix = `${peer}${label === 'create' ? '_create' : ''}`;
    const ratio = against(scenario);
    if (kind === 'new key') {
      peers[`${prefix}_new_vs_plain`] = ratio.rps;
      peers[`${prefix}_new_added_cpu_us`] = ratio.addedMicros;
    } else {
      peers[`${prefix}_replay_vs_plain`] = ratio.rps;
    }
  }
  // baseline_new_vs_plain, baseline_replay_vs_plain, baseline_new_added_cpu_us on echo, and
  // baseline_create_* on create, when BENCH_BASELINE named a build.
  const baselineRows: Record<string, number> = {};
  for (const scenario of baselineScenarios) {
    if (!scenario.against) continue;
    const prefix = scenario.name.startsWith('create') ? 'baseline_create' : 'baseline';
    const ratio = against(scenario);
    if (scenario.name.endsWith('new key')) {
      baselineRows[`${prefix}_new_vs_plain`] = ratio.rps;
      baselineRows[`${prefix}_new_added_cpu_us`] = ratio.addedMicros;
    } else {
      baselineRows[`${prefix}_replay_vs_plain`] = ratio.rps;
    }
  }

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
    // The echo route: the guard's whole cost against a handler that does nothing.
    memory_new_vs_plain: echoNew!.rps,
    memory_replay_vs_plain: echoReplay!.rps,
    memory_new_vs_plain_cpu: echoNew!.cpu,
    memory_replay_vs_plain_cpu: echoReplay!.cpu,
    memory_new_added_cpu_us: echoNew!.addedMicros,
    memory_replay_added_cpu_us: echoReplay!.addedMicros,
    plain_rps: Math.round(measured.get(scenarios[0]!)!.rps),
    memory_new_rps: Math.round(measured.get(scenarios[1]!)!.rps),
    memory_replay_rps: Math.round(measured.get(scenarios[2]!)!.rps),
    // The same guarded echo route with a store that keeps nothing: the guard's own share.
    keep_nothing_new_vs_plain: echoFloor!.rps,
    keep_nothing_new_added_cpu_us: echoFloor!.addedMicros,
    // The create route: an insert through Knex into SQLite, as generated create routes do.
    create_memory_new_vs_plain: createNew!.rps,
    create_memory_replay_vs_plain: createReplay!.rps,
    create_memory_new_vs_plain_cpu: createNew!.cpu,
    create_memory_replay_vs_plain_cpu: createReplay!.cpu,
    create_memory_new_added_cpu_us: createNew!.addedMicros,
    create_plain_rps: Math.round(measured.get(create)!.rps),
    ...peers,
    ...baselineRows,
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
