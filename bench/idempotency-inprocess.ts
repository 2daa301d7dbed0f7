// In-process measure of the CPU the idempotency guard adds per request (not a test): the app is
// driven with socketless requests (a request stream fed the body, a response whose socket
// discards what it is sent), so no load generator and no kernel share the measure. Rounds
// interleave the echo route unguarded, guarded with the memory store (a new key each request, and
// replays) and guarded with a store that keeps nothing, and report the median CPU per request and
// what each guarded route adds to the unguarded one. It runs the compiled runtime (runtime/dist),
// what apps run: build it first.
//
//   npm run build -w @slicekit/runtime && node --import tsx bench/idempotency-inprocess.ts
//   BENCH_REQUESTS=5000 BENCH_ROUNDS=7 node --cpu-prof --import tsx bench/idempotency-inprocess.ts
//
// With BENCH_ONLY=<scenario> (plain, memory-new, memory-replay, keep-nothing) it runs that one
// scenario only, which is what a CPU profile of the guard's path wants.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { KeepNothingStore } from './keep-nothing-store.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const REQUESTS = env('BENCH_REQUESTS', 500);
const ROUNDS = env('BENCH_ROUNDS', 41);
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
  const echo: express.RequestHandler = (req, res) => {
    res.status(201).json({ id: ++id, ...(req.body as Record<string, unknown>) });
  };
  const app = express();
  app.use(express.json());
  addIdempotentKey(app, (options) => {
    options.logger = silentLogger;
    options.conflictHandling = 'CachedResult';
    if (EXPIRATION_MS !== undefined) options.expiration = `${Number(EXPIRATION_MS)}ms`;
  });
  app.post('/echo', echo);
  app.post('/echo/guarded', requiredIdempotentKey(), echo);
  const floor = express();
  floor.use(express.json());
  addIdempotentKeyWithStore(floor, new KeepNothingStore(), (options) => {
    options.logger = silentLogger;
  });
  floor.post('/echo/guarded', requiredIdempotentKey(), echo);
  await prepareApp(app);
  await prepareApp(floor);
  // BENCH_BASELINE=<another build's dist/idempotency/index.js>: the same guarded echo route on
  // that build too, interleaved with this one's in the same process, for a before/after.
  let baseline: express.Express | undefined;
  if (process.env.BENCH_BASELINE) {
    const other = (await import(
      pathToFileURL(process.env.BENCH_BASELINE).href
    )) as typeof import('../runtime/src/idempotency/index.js');
    baseline = express();
    baseline.use(express.json());
    other.addIdempotentKey(baseline, (options) => {
      options.logger = other.silentLogger;
      options.conflictHandling = 'CachedResult';
      if (EXPIRATION_MS !== undefined) options.expiration = `${Number(EXPIRATION_MS)}ms`;
    });
    baseline.post('/echo/guarded', other.requiredIdempotentKey(), echo);
    await other.prepareApp(baseline);
  }

  let counter = 0;
  const scenarios = [
    { name: 'plain', app, path: '/echo', key: () => `k-${++counter}`, status: 201 },
    { name: 'memory-new', app, path: '/echo/guarded', key: () => `k-${++counter}`, status: 201 },
    { name: 'memory-replay', app, path: '/echo/guarded', key: () => 'replayed', status: 201 },
    {
      name: 'keep-nothing',
      app: floor,
      path: '/echo/guarded',
      key: () => `k-${++counter}`,
      status: 201,
    },
  ];
  if (baseline) {
    scenarios.push(
      {
        name: 'baseline-new',
        app: baseline,
        path: '/echo/guarded',
        key: () => `k-${++counter}`,
        status: 201,
      },
      {
        name: 'baseline-replay',
        app: baseline,
        path: '/echo/guarded',
        key: () => 'replayed',
        status: 201,
      },
    );
  }
  scenarios.splice(
    0,
    scenarios.length,
    ...scenarios.filter((s) => ONLY === undefined || s.name === ONLY || s.name === 'plain'),
  );

  const run = async (scenario: (typeof scenarios)[number]) => {
    const before = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) {
      const status = await inject(scenario.app, scenario.path, scenario.key());
      if (status !== scenario.status) throw new Error(`${scenario.name} answered ${status}`);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / REQUESTS;
  };
  // Warm-up: every path compiled and optimised before anything counts.
  for (const scenario of scenarios) await run(scenario);
  const samples = new Map<string, number[]>(scenarios.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of scenarios) samples.get(scenario.name)!.push(await run(scenario));
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const plain = median(samples.get('plain')!);
  const rows = scenarios.map((scenario) => {
    const cpu = median(samples.get(scenario.name)!);
    return {
      scenario: scenario.name,
      'CPU µs/req': cpu.toFixed(1),
      'added µs/req': (cpu - plain).toFixed(1),
      'all rounds': samples
        .get(scenario.name)!
        .map((v) => v.toFixed(0))
        .join(' '),
    };
  });
  console.table(rows);
  console.log(
    JSON.stringify(
      Object.fromEntries(
        rows.map((row) => [
          `${row.scenario.replaceAll('-', '_')}_added_cpu_us`,
          Number(row['added µs/req']),
        ]),
      ),
    ),
  );
}

await main().catch((e) => {
  console.error(e);
  process.exit(1);
});
