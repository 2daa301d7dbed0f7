// Benchmark (not a test) of the generated routes against a floor and a peer, over HTTP from
// outside: the generated Product app (built, `node dist/src/server.js`, default settings), a
// hand-written Express 5 + Knex app issuing the same SQL statements (bench/http-floor), and a
// NestJS app from `nest g resource` with TypeORM (bench/http-nest.ts), each on a database of its
// own holding BENCH_ROWS products, on PostgreSQL and on MySQL/MariaDB. Per route, every round
// loads the three apps one after another (the order rotating), so what drifts during a run falls
// on all alike. Then the create of an app whose create requires an idempotency key (kept in
// PostgreSQL) against the floor's plain create, and the statements per write on the wire.
//
//   npm run bench:http
//   BENCH_ROUNDS=3 BENCH_DURATION=10 BENCH_CONNECTIONS=10 BENCH_ROWS=100000 BENCH_DBS=pg,mysql
//   BENCH_DB_PREFIX=http_bench (its databases are <prefix>_slicekit, <prefix>_floor...)
//
// The last line printed is one JSON object: `<db>_<route>_vs_floor` and `<db>_<route>_vs_nest`
// (requests/s ratios, medians of the rounds), `pg_create_idempotent_vs_floor`, and
// `<db>_<route>_statements` (the generated app's statements per request).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as apps from './http-apps.js';
import { buildNest, nestDir } from './http-nest.js';
import { idempotentCreate, load, routes, type App, type AppName, type Route } from './http-load.js';
import { countStatements, shapeDifferences } from './http-statements.js';
import { median } from './operations-parts.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ROUNDS = env('BENCH_ROUNDS', 3);
const DURATION_S = env('BENCH_DURATION', 10);
const CONNECTIONS = env('BENCH_CONNECTIONS', 10);
const ROWS = env('BENCH_ROWS', 100_000);
const DBS = (process.env.BENCH_DBS ?? 'pg,mysql').split(',') as apps.Db[];

const cache = join(apps.root, '.bench-cache');
const slicekitDir = join(cache, 'http-app');
const idempotentDir = join(cache, 'http-app-idempotent');
const floorDir = join(cache, 'http-floor');

type Variant = AppName | 'slicekit_idempotent';
const starters: Record<Variant, (url: string) => Promise<apps.Server>> = {
  slicekit: (url) =>
    apps.startServer(
      'slicekit',
      slicekitDir,
      ['dist/src/server.js'],
      { DATABASE_URL: url },
      '/health/ready',
    ),
  slicekit_idempotent: (url) =>
    apps.startServer(
      'slicekit (idempotent create)',
      idempotentDir,
      ['dist/src/server.js'],
      { DATABASE_URL: url },
      '/health/ready',
    ),
  floor: (url) =>
    apps.startServer('floor', floorDir, ['server.js'], { DATABASE_URL: url }, '/health'),
  nest: (url) =>
    apps.startServer(
      'NestJS',
      nestDir,
      ['dist/main.js'],
      { DATABASE_URL: url },
      '/v1/products?minPrice=1000000',
    ),
};

async function build(): Promise<void> {
  console.log(
    'http bench: building the generated app (twice: plain, idempotent create), the floor and the NestJS peer...',
  );
  await apps.buildSlicekit(slicekitDir);
  await apps.buildSlicekit(idempotentDir, true);
  const tsc = join(apps.root, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = spawnSync(
    process.execPath,
    [
      tsc,
      join(apps.root, 'bench/http-floor/server.ts'),
      '--outDir',
      floorDir,
      '--module',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
    ],
    { encoding: 'utf8' },
  );
  if (compiled.status !== 0) throw new Error(`the floor did not compile:\n${compiled.stdout}`);
  buildNest();
}

/** A database for `variant`, migrated by the generated app (started once), seeded, with its ids. */
async function prepare(
  db: apps.Db,
  variant: Variant,
): Promise<{ database: string; url: string; ids: string[] }> {
  const database = `${process.env.BENCH_DB_PREFIX ?? 'http_bench'}_${variant}`;
  const url = await apps.freshDatabase(db, database);
  await (await starters.slicekit(url)).stop();
  await apps.seedProducts(db, url, ROWS);
  return { database, url, ids: await apps.productIds(db, url) };
}

const results = new Map<string, number[]>();
const push = (key: string, value: number) => results.set(key, [...(results.get(key) ?? []), value]);
const med = (key: string) => median(results.get(key) ?? [NaN]);

async function runDb(db: apps.Db, summary: Record<string, number>): Promise<void> {
  const variants: Variant[] =
    db === 'pg'
      ? ['slicekit', 'floor', 'nest', 'slicekit_idempotent']
      : ['slicekit', 'floor', 'nest'];
  const running = new Map<Variant, App>();
  const databases: string[] = [];
  try {
    for (const variant of variants) {
      const { database, url, ids } = await prepare(db, variant);
      databases.push(database);
      const name: AppName = variant === 'slicekit_idempotent' ? 'slicekit' : variant;
      const unserved = { name, db, database, hot: ids.slice(-1000), doomed: ids.slice(0, -1000) };
      if (variant === 'slicekit_idempotent') {
        const counted = await countStatements(db, url, starters[variant], unserved, [
          idempotentCreate,
        ]);
        summary.pg_create_idempotent_statements = Number(
          counted.perRequest.create_idempotent!.toFixed(2),
        );
      }
      if (variant === 'slicekit' || variant === 'floor') {
        const counted = await countStatements(
          db,
          url,
          starters[variant],
          unserved,
          routes.slice(2),
        );
        for (const [route, count] of Object.entries(counted.perRequest)) {
          summary[`${db}_${route}_statements${variant === 'floor' ? '_floor' : ''}`] = Number(
            count.toFixed(2),
          );
        }
        if (variant === 'floor') {
          for (const route of routes.slice(2)) {
            const slicekitShapes = shapes.get(`${db}/${route.name}`) ?? [];
            for (const line of shapeDifferences(slicekitShapes, counted.shapes[route.name] ?? [])) {
              console.log(`  ${db} ${route.name}: ${line}`);
            }
          }
        } else {
          for (const [route, list] of Object.entries(counted.shapes))
            shapes.set(`${db}/${route}`, list);
        }
      }
      running.set(variant, { ...unserved, server: await starters[variant](url) });
    }
    const trio = (['slicekit', 'floor', 'nest'] as const).map((name) => running.get(name)!);
    // Warm-up, not recorded: JIT, pools, plans.
    for (const route of routes)
      for (const app of trio) await load(app, route, Math.min(2, DURATION_S), CONNECTIONS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of routes) {
        for (let i = 0; i < trio.length; i++) {
          const app = trio[(i + round) % trio.length]!;
          record(
            `${db}/${route.name}/${app.name}`,
            await load(app, route, DURATION_S, CONNECTIONS),
          );
        }
      }
      if (db === 'pg') {
        const guarded = running.get('slicekit_idempotent')!;
        const pair: [App, Route][] = [
          [guarded, idempotentCreate],
          [running.get('floor')!, routes[2]!],
        ];
        if (round % 2) pair.reverse();
        for (const [app, route] of pair) {
          const name = app === guarded ? 'slicekit' : 'floor';
          record(`pg/create_idempotent/${name}`, await load(app, route, DURATION_S, CONNECTIONS));
        }
        push(
          'pg/create_idempotent/ratio',
          last('pg/create_idempotent/slicekit/rps') / last('pg/create_idempotent/floor/rps'),
        );
      }
      console.log(`${db}: round ${round + 1}/${ROUNDS} done`);
    }
  } finally {
    for (const app of running.values()) await app.server.stop();
    for (const database of databases) await apps.dropDatabase(db, database);
  }
}

const shapes = new Map<string, string[]>();
/** The last value recorded under `key` (this round's). */
const last = (key: string) => results.get(key)!.at(-1)!;

function record(key: string, measured: Awaited<ReturnType<typeof load>>): void {
  if (measured.failed > 0)
    console.log(`  ${key}: ${measured.failed} failed requests ${measured.statuses}`);
  push(`${key}/rps`, measured.rps);
  push(`${key}/app`, measured.appCpu);
  push(`${key}/db`, measured.dbCpu);
}

function report(summary: Record<string, number>): void {
  console.log(
    `\n${ROUNDS} rounds of ${DURATION_S} s per route and app, ${CONNECTIONS} connections, ${ROWS} products; ` +
      'medians of the rounds; CPU in µs per request (app process / database server)',
  );
  const header = [
    'db',
    'route',
    'slicekit',
    'floor',
    'nest',
    'vs floor',
    'vs nest',
    'CPU slicekit',
    'CPU floor',
    'CPU nest',
  ];
  const rows: string[][] = [header];
  for (const db of DBS) {
    for (const route of [...routes, ...(db === 'pg' ? [idempotentCreate] : [])]) {
      const rps = (name: AppName) => med(`${db}/${route.name}/${name}/rps`);
      const cpu = (name: AppName) =>
        `${med(`${db}/${route.name}/${name}/app`).toFixed(0)} / ${med(`${db}/${route.name}/${name}/db`).toFixed(0)}`;
      const ratios = (name: AppName) => {
        const slicekit = results.get(`${db}/${route.name}/slicekit/rps`) ?? [];
        const other = results.get(`${db}/${route.name}/${name}/rps`) ?? [];
        return median(slicekit.map((value, i) => value / other[i]!));
      };
      if (route === idempotentCreate) {
        const ratio = med('pg/create_idempotent/ratio');
        summary.pg_create_idempotent_vs_floor = Number(ratio.toFixed(3));
        rows.push([
          db,
          route.label,
          rps('slicekit').toFixed(0),
          `(plain) ${rps('floor').toFixed(0)}`,
          '',
          ratio.toFixed(2),
          '',
          cpu('slicekit'),
          '',
          '',
        ]);
        continue;
      }
      const [vsFloor, vsNest] = [ratios('floor'), ratios('nest')];
      summary[`${db}_${route.name}_vs_floor`] = Number(vsFloor.toFixed(3));
      summary[`${db}_${route.name}_vs_nest`] = Number(vsNest.toFixed(3));
      rows.push([
        db,
        route.label,
        rps('slicekit').toFixed(0),
        rps('floor').toFixed(0),
        rps('nest').toFixed(0),
        vsFloor.toFixed(2),
        vsNest.toFixed(2),
        cpu('slicekit'),
        cpu('floor'),
        cpu('nest'),
      ]);
    }
  }
  const widths = header.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
  console.log('\nstatements per request on the wire (generated app, delivery included / floor):');
  for (const db of DBS) {
    for (const route of routes.slice(2)) {
      console.log(
        `  ${db} ${route.name}: ${summary[`${db}_${route.name}_statements`]} / ${summary[`${db}_${route.name}_statements_floor`]}`,
      );
    }
  }
}

async function main(): Promise<void> {
  await build();
  const summary: Record<string, number> = {};
  for (const db of DBS) await runDb(db, summary);
  report(summary);
  console.log(JSON.stringify(summary));
}

process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));
await main();
