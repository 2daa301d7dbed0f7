// In-process measure of the CPU the idempotency guard adds per request (not a test): the app is
// driven with socketless requests (a request stream fed the body, a response whose socket
// discards what it is sent), so no load generator and no kernel share the measure. Each guard
// runs in a process of its own (slicekit's on the memory store, on a store that keeps nothing,
// each peer of bench:idempotency and its minimal guard, `floor`), where requests go round-robin
// (shuffled each round), one at a time, to the echo and create routes unguarded and guarded (a
// new key each request, and replays). It reports the mean time per request, what each guarded
// route adds to the unguarded one, and their ratio. Run it on an idle machine (the time of a
// request is its CPU time only when the process is never descheduled), and more than once: one
// process's compilation choices move a figure by a few µs. It runs the compiled runtime
// (runtime/dist), what apps run: build it first.
//
//   npm run build -w @slicekit/runtime && node --import tsx bench/idempotency-inprocess.ts
//   BENCH_REQUESTS=5000 BENCH_ONLY='memory new' node --cpu-prof --import tsx bench/idempotency-inprocess.ts
//
// BENCH_FINGERPRINT=0 turns slicekit's request fingerprint off (its share of what the guard adds;
// the `floor_fingerprint` peer shows what it adds to the minimal guard).
//
// With BENCH_ONLY=<scenarios> ('memory new', 'baseline new', 'floor replay', ...: a comma-separated
// list) it runs those only, in this process, beside the unguarded routes: what a CPU profile wants.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { PEERS, mountPeers } from './idempotency-peers.js';
import { KeepNothingStore } from './keep-nothing-store.js';
import { ordersTable } from './orders-table.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const REQUESTS = env('BENCH_REQUESTS', 10_000);
const WARM_UP = 2000;
const ONLY = process.env.BENCH_ONLY;
// The memory store's expiration: by default the guard's (4 h), so every key of the run is kept,
// as in bench:idempotency; a short one keeps the heap small, which leaves the guard's own work.
const EXPIRATION_MS = process.env.BENCH_EXPIRATION_MS;
const BODY = Buffer.from(JSON.stringify({ sku: 'ABC-123', quantity: 2, note: 'benchmark order' }));

/** A socket that takes every write and sends nothing anywhere. */
function nullSocket(): Duplex {
  const socket = new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback();
    },
    writev(_chunks, callback) {
      callback();
    },
  });
  Object.assign(socket, { remoteAddress: '127.0.0.1', encrypted: false });
  return socket;
}

/** One POST through `app`, resolved once the response has finished. */
function inject(app: express.Express, path: string, key: string): Promise<number> {
  const socket = nullSocket();
  const req = new IncomingMessage(socket as never);
  req.method = 'POST';
  req.url = path;
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.httpVersion = '1.1';
  req.headers = {
    host: '127.0.0.1',
    'content-type': 'application/json',
    'content-length': String(BODY.length),
    'x-idempotency-key': key,
  };
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise((resolve, reject) => {
    res.once('finish', () => resolve(res.statusCode));
    res.once('error', reject);
    app(req as express.Request, res as express.Response);
    req.push(BODY);
    // What Node's parser sets once the body is in; without it the finished request stream
    // counts as aborted and destroys the socket before the response is written.
    req.complete = true;
    req.push(null);
  });
}

async function main(): Promise<void> {
  const {
    addIdempotentKey,
    addIdempotentKeyWithStore,
    requiredIdempotentKey,
    silentLogger,
    prepareApp,
  } =
    (await import('@slicekit/runtime/idempotency')) as typeof import('../runtime/src/idempotency/index.js');
  let id = 0;
  const echoBody = (body: Record<string, unknown>) => ({ id: ++id, ...body });
  const orders = await ordersTable();
  const handlers = {
    echo: ((req, res) => {
      res.status(201).json(echoBody(req.body as Record<string, unknown>));
    }) as express.RequestHandler,
    orders: (async (req, res) => {
      res.status(201).json(await orders.insert(req.body as Record<string, unknown>));
    }) as express.RequestHandler,
  };
  const ROUTES = ['echo', 'orders'] as const;
  /** An app with `express.json()` and slicekit's guard set up by `setUp`. */
  const guardedApp = (setUp: (app: express.Express) => void) => {
    const app = express();
    app.use(express.json());
    setUp(app);
    return app;
  };
  const configure: Parameters<typeof addIdempotentKey>[1] = (options) => {
    options.logger = silentLogger;
    options.conflictHandling = 'CachedResult';
    if (EXPIRATION_MS !== undefined) options.expiration = `${Number(EXPIRATION_MS)}ms`;
    if (process.env.BENCH_FINGERPRINT === '0') options.requestFingerprint = null;
  };
  const app = guardedApp((a) => addIdempotentKey(a, configure));
  for (const route of ROUTES) {
    app.post(`/${route}`, handlers[route]);
    app.post(`/${route}/guarded`, requiredIdempotentKey(), handlers[route]);
  }
  const keepNothing = guardedApp((a) =>
    addIdempotentKeyWithStore(a, new KeepNothingStore(), (options) => {
      options.logger = silentLogger;
    }),
  );
  keepNothing.post('/echo/guarded', requiredIdempotentKey(), handlers.echo);
  // The peers of bench:idempotency and its minimal guard (the floor), each on an app of its own
  // so its routes come first, as the unguarded and slicekit's guarded routes nearly do.
  const peerApps = PEERS.map((peer) => {
    const peerApp = express();
    peerApp.use(express.json());
    mountPeers(peerApp, { echo: echoBody, create: (body) => orders.insert(body) }, [peer]);
    return { peer, app: peerApp };
  });
  await prepareApp(app);
  await prepareApp(keepNothing);
  // BENCH_BASELINE=<another build's dist/idempotency/index.js>: the same guarded routes on that
  // build too, interleaved with this one's in the same process, for a before/after.
  let baseline: express.Express | undefined;
  if (process.env.BENCH_BASELINE) {
    const other = (await import(
      pathToFileURL(process.env.BENCH_BASELINE).href
    )) as typeof import('../runtime/src/idempotency/index.js');
    baseline = guardedApp((a) => other.addIdempotentKey(a, configure));
    for (const route of ROUTES) {
      baseline.post(`/${route}/guarded`, other.requiredIdempotentKey(), handlers[route]);
    }
    await other.prepareApp(baseline);
  }

  let counter = 0;
  const newKey = () => `k-${++counter}`;
  interface Scenario {
    name: string;
    route: (typeof ROUTES)[number];
    app: express.Express;
    path: string;
    key: () => string;
  }
  const scenarios: Scenario[] = [];
  for (const route of ROUTES) {
    const add = (name: string, on: express.Express, path: string, key: () => string) =>
      scenarios.push({ name: `${route}: ${name}`, route, app: on, path, key });
    add('plain', app, `/${route}`, newKey);
    add('memory new', app, `/${route}/guarded`, newKey);
    add('memory replay', app, `/${route}/guarded`, () => `replayed-${route}`);
    if (route === 'echo') add('keep-nothing new', keepNothing, '/echo/guarded', newKey);
    for (const { peer, app: peerApp } of peerApps) {
      add(`${peer} new`, peerApp, `/${route}/${peer}`, newKey);
      add(`${peer} replay`, peerApp, `/${route}/${peer}`, () => `replayed-${route}`);
    }
    if (baseline) {
      add('baseline new', baseline, `/${route}/guarded`, newKey);
      add('baseline replay', baseline, `/${route}/guarded`, () => `replayed-${route}`);
    }
  }
  const only = ONLY?.split(',');
  const measured = scenarios.filter(
    (s) =>
      only === undefined ||
      s.name.endsWith(': plain') ||
      only.some((name) => s.name.endsWith(`: ${name}`)),
  );

  const once = async (scenario: Scenario) => {
    const status = await inject(scenario.app, scenario.path, scenario.key());
    if (status !== 201) throw new Error(`${scenario.name} answered ${status}`);
  };
  // Warm-up: every path compiled and optimised before anything counts.
  for (let i = 0; i < WARM_UP; i++) for (const scenario of measured) await once(scenario);
  // Round-robin, one request at a time, in a new shuffled order each round: whatever the process
  // does meanwhile (a garbage collection of every key kept so far, a recompilation) lands on every
  // scenario alike, and no scenario always follows the same one. A request's time runs until the
  // event loop has turned once after its response finished, so the work it left behind (a
  // connection going back to the pool, a store write not awaited) counts for it, not for the
  // next. On an idle machine the process is never descheduled: elapsed time is CPU time.
  const totals = measured.map(() => 0n);
  const order = measured.map((_, k) => k);
  let seed = 0x2545f491;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  for (let i = 0; i < REQUESTS; i++) {
    for (let j = order.length - 1; j > 0; j--) {
      const other = Math.floor(random() * (j + 1));
      [order[j], order[other]] = [order[other]!, order[j]!];
    }
    for (const k of order) {
      const started = process.hrtime.bigint();
      await once(measured[k]!);
      await turn();
      totals[k]! += process.hrtime.bigint() - started;
    }
  }
  const micros = new Map(measured.map((s, k) => [s, Number(totals[k]!) / 1000 / REQUESTS]));
  const plainOf = (scenario: Scenario) =>
    micros.get(measured.find((s) => s.route === scenario.route && s.name.endsWith(': plain'))!)!;
  console.table(
    measured.map((scenario) => ({
      scenario: scenario.name,
      'µs/req': micros.get(scenario)!.toFixed(1),
      'added µs/req': (micros.get(scenario)! - plainOf(scenario)).toFixed(1),
      // Requests per second of one busy process, against the unguarded route's.
      'vs plain': (plainOf(scenario) / micros.get(scenario)!).toFixed(3),
    })),
  );
  // `<scenario>_added_us` and `<scenario>_vs_plain`, echo first, create routes prefixed `create_`.
  const summary: Record<string, number> = {};
  for (const scenario of measured) {
    if (scenario.name.endsWith(': plain')) continue;
    const name = scenario.name
      .replace(/^echo: /, '')
      .replace(/^orders: /, 'create_')
      .replaceAll(/[ -]/g, '_');
    summary[`${name}_added_us`] = Number((micros.get(scenario)! - plainOf(scenario)).toFixed(1));
    summary[`${name}_vs_plain`] = Number((plainOf(scenario) / micros.get(scenario)!).toFixed(3));
  }
  console.log(JSON.stringify(summary));
  await orders.close();
}

/**
 * Without BENCH_ONLY: each guard in a process of its own, beside the unguarded routes, as a guard
 * runs in the app that uses it: with every guard in one process, each one's shapes of `req` and
 * `res` reach Express's and Node's shared code, which then runs slower for all, so what one guard
 * adds depends on which others run beside it. Prints each process's table, then one JSON line
 * with every figure.
 */
async function eachGuardApart(): Promise<void> {
  const groups = [
    ['memory new', 'memory replay'],
    ['keep-nothing new'],
    ...PEERS.map((peer) => [`${peer} new`, `${peer} replay`]),
    ...(process.env.BENCH_BASELINE ? [['baseline new', 'baseline replay']] : []),
  ];
  const summary: Record<string, number> = {};
  for (const group of groups) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
      env: { ...process.env, BENCH_ONLY: group.join(',') },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (child.status !== 0) throw new Error(`the run of ${group.join(', ')} failed`);
    const lines = child.stdout.trimEnd().split('\n');
    process.stdout.write(`${lines.slice(0, -1).join('\n')}\n`);
    Object.assign(summary, JSON.parse(lines.at(-1)!) as Record<string, number>);
  }
  console.log(JSON.stringify(summary));
}

await (ONLY === undefined ? eachGuardApart() : main()).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
