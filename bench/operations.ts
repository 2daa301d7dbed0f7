// Benchmark (not a test) of what operating a generated app costs it: requests/s of the Product
// app's create (POST /v1/products) and list (GET /v1/products) routes with metrics on (tracing
// off), and with metrics and tracing on, each against both off. Three processes of the same
// compiled app, one per variant, each on its own SQLite file, are loaded in turn, the order
// rotating every round, so what drifts during a run falls on every variant alike. Tracing exports
// to a small OTLP/HTTP sink in this script that answers 200.
//
//   npm run bench:operations   BENCH_CREATES=300 BENCH_DURATION=3 BENCH_ROUNDS=5 BENCH_CONNECTIONS=16
//   (each round and variant: BENCH_CREATES creates, then BENCH_DURATION seconds of lists)
//
// The app runs compiled (npm run build, then its `npm start` command, with the compiled runtime),
// as in production, at LOG_LEVEL=warn so the request log does not hide what is measured, on SQLite
// files in memory (/dev/shm) so the disk does not either. The last line printed is one JSON
// object with the median ratios (variant / both off).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRuntimeBuild } from '../scripts/pack.js';
import { addEntity, generateApp, productSpec } from '../scripts/generate.js';
import { cpuMicros, freePort, median, otlpSink, perRequestWork } from './operations-parts.js';

/** The part of autocannon's API used here (it ships no types). */
interface LoadResult {
  requests: { average: number; total: number };
  /** Seconds the load took. */
  duration: number;
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  method: string;
  connections: number;
  duration?: number;
  /** A number of requests instead of a duration. */
  amount?: number;
  headers?: Record<string, string>;
  body?: string;
}) => Promise<LoadResult>;

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const DURATION_S = env('BENCH_DURATION', 3);
const ROUNDS = env('BENCH_ROUNDS', 5);
const CONNECTIONS = env('BENCH_CONNECTIONS', 16);
// Creates are a number of requests, the same for every variant, so each variant's table holds the
// same rows and its list reads the same amount of data.
const CREATES = env('BENCH_CREATES', 300);
const root = fileURLToPath(new URL('..', import.meta.url));
const appDir = join(root, '.bench-cache', 'operations-app');
// In memory where the system offers it: a disk's fsync per commit would bound every variant alike
// and hide what the app's own work costs.
const dataDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'slicekit-ops-'));

type VariantName = 'off' | 'metrics' | 'tracing';
interface Variant {
  readonly name: VariantName;
  readonly label: string;
  readonly url: string;
  readonly process: ChildProcess;
}

const routes = [
  {
    name: 'create',
    method: 'POST',
    path: '/v1/products',
    body: JSON.stringify({ name: 'Benchmark product', price: 9.99 }),
  },
  { name: 'list', method: 'GET', path: '/v1/products', body: undefined },
] as const;

/** The generated Product app, compiled, with the compiled runtime it resolves to. */
async function buildApp(): Promise<string[]> {
  rmSync(appDir, { recursive: true, force: true });
  await generateApp({ directory: appDir, name: 'operations-bench' });
  await addEntity(appDir, productSpec, { now: '2024-05-01T09:30:00Z' });
  ensureRuntimeBuild();
  const plain = { ...process.env };
  delete plain.NODE_OPTIONS;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const built = spawnSync(npm, ['run', 'build'], { cwd: appDir, env: plain, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build failed:\n${built.stdout}${built.stderr}`);
  // The app's own start command (`node ... dist/src/server.js`), run without npm in between.
  const manifest = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const [command, ...args] = manifest.scripts.start.split(/\s+/);
  if (command !== 'node') throw new Error(`unexpected start command: ${manifest.scripts.start}`);
  return args;
}

async function startVariant(
  name: VariantName,
  label: string,
  args: string[],
  settings: NodeJS.ProcessEnv,
): Promise<Variant> {
  const port = await freePort();
  const plain = { ...process.env };
  delete plain.NODE_OPTIONS;
  for (const key of Object.keys(plain)) if (key.startsWith('OTEL_')) delete plain[key];
  const child = spawn(process.execPath, args, {
    cwd: appDir,
    env: {
      ...plain,
      PORT: String(port),
      DATABASE_URL: join(dataDir, `${name}.sqlite`),
      LOG_LEVEL: 'warn',
      ...settings,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the ${name} server exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/v1/products`)).ok) return { name, label, url, process: child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${name} server did not answer within 30 s`);
}

interface Measured {
  rps: number;
  /** Server CPU µs per request; NaN where /proc is not available. */
  cpu: number;
}

/** One load of `route`: BENCH_CREATES creates, or BENCH_DURATION s of lists, times `scale`. */
async function load(
  variant: Variant,
  route: (typeof routes)[number],
  scale = 1,
): Promise<Measured> {
  const cpuBefore = cpuMicros(variant.process);
  const result = await autocannon({
    url: `${variant.url}${route.path}`,
    method: route.method,
    connections: CONNECTIONS,
    ...(route.method === 'POST'
      ? { amount: Math.max(CONNECTIONS, Math.round(CREATES * scale)) }
      : { duration: DURATION_S * scale }),
    ...(route.body ? { headers: { 'content-type': 'application/json' }, body: route.body } : {}),
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${variant.name} ${route.name}: ${failed} failed requests`);
  const cpuAfter = cpuMicros(variant.process);
  const cpu =
    cpuBefore === undefined || cpuAfter === undefined
      ? NaN
      : (cpuAfter - cpuBefore) / Math.max(1, result.requests.total);
  return { rps: result.requests.total / result.duration, cpu };
}

async function main(): Promise<void> {
  console.log('operations bench: generating and building the Product app...');
  const args = await buildApp();
  const sink = await otlpSink();
  const tracingBuilt = existsSync(join(appDir, 'dist', 'src', 'instrument.js'));
  const variants: Variant[] = [];
  process.once('exit', () => {
    variants.forEach((v) => v.process.kill('SIGTERM'));
    rmSync(dataDir, { recursive: true, force: true });
  });
  variants.push(await startVariant('off', 'both off', args, { METRICS_PORT: '0' }));
  const metricsPort = String(await freePort());
  variants.push(
    await startVariant('metrics', 'metrics on, tracing off', args, { METRICS_PORT: metricsPort }),
  );
  if (tracingBuilt) {
    variants.push(
      await startVariant('tracing', 'metrics and tracing on', args, {
        METRICS_PORT: String(await freePort()),
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_SERVICE_NAME: 'operations-bench',
      }),
    );
  } else {
    console.log(
      'tracing: skipped (this app has no src/instrument.ts yet; the variant runs once it has)',
    );
  }

  // Warm-up, not recorded: JIT, pools, and some rows for the list to read.
  for (const variant of variants) for (const route of routes) await load(variant, route, 0.3);

  const rps = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  const cpuRatios = new Map<string, number[]>();
  const push = (map: Map<string, number[]>, key: string, value: number) =>
    map.set(key, [...(map.get(key) ?? []), value]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of routes) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      const measured = new Map<VariantName, Measured>();
      for (const variant of order) {
        measured.set(variant.name, await load(variant, route));
      }
      const off = measured.get('off')!;
      for (const [name, value] of measured) {
        const key = `${route.name}/${name}`;
        push(rps, key, value.rps);
        push(cpu, key, value.cpu);
        if (name === 'off') continue;
        push(ratios, key, value.rps / off.rps);
        push(cpuRatios, key, value.cpu / off.cpu);
      }
    }
    console.log(`round ${round + 1}/${ROUNDS} done`);
  }

  const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  if (!/^http_server_request_duration_seconds_count\{/m.test(scraped)) {
    throw new Error('the metrics variant exported no request durations');
  }
  console.log(
    `\n${ROUNDS} rounds of ${CREATES} creates and ${DURATION_S} s of lists per variant, ` +
      `${CONNECTIONS} connections, SQLite`,
  );
  console.log(
    "Ratios are medians of each round's variant / both off; CPU is the server's µs per request.",
  );
  console.log('route   variant                    req/s  req/s ratio  CPU µs/req  CPU ratio');
  const summary: Record<string, number> = {};
  for (const route of routes) {
    for (const variant of variants) {
      const key = `${route.name}/${variant.name}`;
      const off = variant.name === 'off';
      const ratio = off ? 1 : median(ratios.get(key)!);
      const cpuRatio = off ? 1 : median(cpuRatios.get(key)!);
      if (!off) {
        summary[`${route.name}_${variant.name}_rps_ratio`] = Number(ratio.toFixed(4));
        summary[`${route.name}_${variant.name}_cpu_ratio`] = Number(cpuRatio.toFixed(4));
      }
      console.log(
        [
          route.name.padEnd(7),
          variant.label.padEnd(24),
          median(rps.get(key)!).toFixed(0).padStart(7),
          ratio.toFixed(3).padStart(12),
          median(cpu.get(key)!).toFixed(0).padStart(11),
          cpuRatio.toFixed(3).padStart(10),
        ].join(' '),
      );
    }
  }
  if (tracingBuilt) console.log(`OTLP sink: ${sink.exports()} export requests received`);
  const work = await perRequestWork();
  console.log(
    `metrics' own work per request, in process: ${(work.onNs / 1000).toFixed(2)} µs on, ` +
      `${(work.offNs / 1000).toFixed(2)} µs off (the fake request and response included)`,
  );
  summary.metrics_work_us = Number(((work.onNs - work.offNs) / 1000).toFixed(3));
  console.log(JSON.stringify(summary));
  sink.server.close();
  for (const variant of variants) variant.process.kill('SIGTERM');
}

await main();
