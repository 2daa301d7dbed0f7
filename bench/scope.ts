// What the row scope costs: list and get of an entity with `tenant: true` and `softDelete: true`
// (every query confined to the caller's tenant and to live rows, after the role check) against
// the same routes of an entity without them, in one generated app, over HTTP, side by side.
// Two phases: first both tables hold the same BENCH_ROWS rows, all of the caller's tenant and
// live (what the scope itself costs); then the scoped table also gets as many rows of another
// tenant and a tenth as many deleted ones (what reading past them costs: the list's exact count
// reads them). Both sides send the same bearer token; the list is measured as generated (its
// default count) and with the exact count. The app runs compiled (`npm run build`, `node
// dist/src/server.js`), as in production. Prints the median ratio per route, phase and database,
// with each side's CPU per request in the app and in the database, then one JSON line.
//
//   npm run bench:scope             BENCH_ROWS=20000 BENCH_ROUNDS=15 BENCH_REQUESTS=200
//   BENCH_DATABASES=pg npm run bench:scope
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { addEntity, generateApp } from '../scripts/generate.js';
import { mintToken } from '../scripts/demo-token.js';
import {
  buildApp,
  cpuOf,
  databaseCpu,
  dropDatabase,
  freshDatabase,
  protocolOf,
  root,
  startServer,
  withKnex,
  type Db,
} from './http-apps.js';
import { loadPair } from './paired.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = 4;
const DATABASES = (process.env.BENCH_DATABASES ?? 'pg,mysql').split(',') as Db[];
const SECRET = 'bench-scope-secret-of-at-least-32-bytes';

const fields = `fields:
  email: { type: string, required: true, unique: true, maxLength: 200 }
  name: { type: string, required: true, maxLength: 100 }
`;
const plainSpec = `entity: Client\n${fields}`;
const scopedSpec = `entity: Account\ntenant: true\nsoftDelete: true\n${fields}access:\n  list: authenticated\n  get: authenticated\n`;

async function generate(dir: string, db: Db): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  await generateApp({ directory: dir, name: 'bench-scope', database: protocolOf[db] });
  mkdirSync(join(dir, 'specs'), { recursive: true });
  writeFileSync(join(dir, 'specs/client.yaml'), plainSpec);
  writeFileSync(join(dir, 'specs/account.yaml'), scopedSpec);
  await addEntity(dir, join(dir, 'specs'));
  buildApp(dir);
}

/** `count` rows, a second apart from 2024 on, with `extra` columns. */
function rows(count: number, extra: Record<string, unknown> = {}) {
  const start = Date.UTC(2024, 0, 1);
  return Array.from({ length: count }, (_, n) => ({
    id: randomUUID(),
    email: `user${n}-${randomUUID().slice(0, 8)}@bench.test`,
    name: `User ${(n * 7919) % 100_003}`,
    created_by: 'bench',
    created_on: new Date(start + n * 1000),
    updated_by: 'bench',
    updated_on: new Date(start + n * 1000),
    ...extra,
  }));
}

// PostgreSQL: VACUUM as autovacuum does soon after a bulk load; the visibility map it sets is what
// lets a count read an index alone (an index-only scan), on either side.
const analyze = (knex: Knex, db: Db) =>
  knex.raw(db === 'pg' ? 'VACUUM ANALYZE clients, accounts' : 'ANALYZE TABLE clients, accounts');

/** Fills both tables with the same rows, the scoped ones of ACME; ids of rows to get from each. */
async function seed(knex: Knex, db: Db): Promise<{ plain: string[]; scoped: string[] }> {
  const plain = rows(ROWS);
  const scoped = plain.map((row) => ({ ...row, id: randomUUID(), tenant_id: 'ACME' }));
  await knex.batchInsert('clients', plain, 1000);
  await knex.batchInsert('accounts', scoped, 1000);
  await analyze(knex, db);
  const pick = (list: { id: string }[]) => list.slice(0, 100).map((r) => r.id);
  return { plain: pick(plain), scoped: pick(scoped) };
}

/** Adds the rows the caller must not see: another tenant's, and deleted ones of its own. */
async function seedHidden(knex: Knex, db: Db): Promise<void> {
  const others = rows(ROWS, { tenant_id: 'GLOBEX' });
  const deleted = rows(Math.floor(ROWS / 10), {
    tenant_id: 'ACME',
    deleted_on: new Date(),
    deleted_by: 'bench',
    deletion_id: randomUUID(),
  }).map((row, n) => ({ ...row, created_on: new Date(Date.UTC(2024, 0, 1) + n * 10_000) }));
  await knex.batchInsert('accounts', [...others, ...deleted], 1000);
  await analyze(knex, db);
}

/** `REQUESTS` requests from `CONCURRENCY` callers; the elapsed ms. */
type Headers = Record<string, string>;
const ROUTES = ['list', 'listExact', 'get'] as const;
type Route = (typeof ROUTES)[number];
type Ratios = Record<Route, number>;
interface Cpu {
  app: number;
  db: number;
}

async function load(paths: () => string, headers: Headers): Promise<number> {
  let left = REQUESTS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) {
        const res = await fetch(paths(), { headers });
        if (res.status !== 200) throw new Error(`${res.url}: ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  return performance.now() - started;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const results: Record<string, Record<string, Ratios>> = {};
console.log(
  `load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
for (const db of DATABASES) {
  const dir = join(root, '.work', `bench-scope-${db}-${process.pid}`);
  await generate(dir, db);
  const url = await freshDatabase(db, 'slicekit_bench_scope');
  const server = await startServer(
    `scope app (${db})`,
    dir,
    ['dist/src/server.js'],
    {
      DATABASE_URL: url,
      AUTH_JWT_SECRET: SECRET,
      ADMIN_ENABLED: 'false',
      LOG_LEVEL: 'silent',
    },
    '/v1/clients',
  );
  try {
    const ids = await withKnex(db, url, (knex) => seed(knex, db));
    const token = mintToken(SECRET, { user: 'bench', roles: [], tenant: 'ACME' }, {});
    // Two lists: as generated (the default `estimated` count: exact below `exactCountBelow`, the
    // database's estimate above) and with `Prefer: count=exact` on both sides. On MySQL and
    // MariaDB InnoDB caps a range's estimate at half the table's rows, so where one tenant holds
    // every row the scoped side can estimate under the threshold and count while the unscoped one
    // estimates: each side's `Preference-Applied` and total are printed with the ratios.
    const asGenerated = { authorization: `Bearer ${token}` };
    const exact = { ...asGenerated, prefer: 'count=exact' };
    let turn = 0;
    const one = (list: string[]) => list[turn++ % list.length];
    const listPath = (resource: string) => () => `${server.url}/v1/${resource}?pageSize=20`;
    const getPath = (resource: string, list: string[]) => () =>
      `${server.url}/v1/${resource}/${one(list)}`;
    const routes: Record<
      Route,
      { clients: () => string; accounts: () => string; headers: Headers }
    > = {
      list: { clients: listPath('clients'), accounts: listPath('accounts'), headers: asGenerated },
      listExact: { clients: listPath('clients'), accounts: listPath('accounts'), headers: exact },
      get: {
        clients: getPath('clients', ids.plain),
        accounts: getPath('accounts', ids.scoped),
        headers: asGenerated,
      },
    };
    const measure = async (phase: string) => {
      const counts: string[] = [];
      for (const route of ['list', 'listExact'] as const) {
        for (const resource of ['clients', 'accounts'] as const) {
          const res = await fetch(routes[route][resource](), { headers: routes[route].headers });
          const body = (await res.json()) as { totalItemCount?: number };
          counts.push(
            `${route} ${resource}: ${body.totalItemCount} (${res.headers.get('preference-applied')})`,
          );
        }
      }
      if (
        !counts.filter((c) => c.startsWith('listExact')).every((c) => c.endsWith('(count=exact)'))
      )
        throw new Error(`count not exact: ${counts.join('; ')}`);
      const ratios: Record<Route, number[]> = { list: [], listExact: [], get: [] };
      const times: Record<Route, number[]> = { list: [], listExact: [], get: [] };
      // CPU µs per request of each side, in the app and in the database.
      const cpu = Object.fromEntries(
        ROUTES.map((r) => [r, { plain: [] as Cpu[], scoped: [] as Cpu[] }]),
      ) as Record<Route, { plain: Cpu[]; scoped: Cpu[] }>;
      const measured = async (paths: () => string, headers: Headers) => {
        const app = cpuOf(server.process.pid);
        const database = databaseCpu(db, 'slicekit_bench_scope');
        const ms = await load(paths, headers);
        return {
          ms,
          cpu: {
            app: (cpuOf(server.process.pid) - app) / REQUESTS,
            db: (databaseCpu(db, 'slicekit_bench_scope') - database) / REQUESTS,
          },
        };
      };
      for (const route of ROUTES) {
        const { clients, accounts, headers } = routes[route];
        // Warm both sides up (JIT, pools, plans) before measuring.
        await load(clients, headers);
        await load(accounts, headers);
      }
      for (let round = 0; round < ROUNDS; round++) {
        for (const route of ROUTES) {
          const { clients, accounts, headers } = routes[route];
          const pair = await loadPair(
            round,
            () => measured(clients, headers),
            () => measured(accounts, headers),
          );
          ratios[route].push(pair.guarded.ms / pair.plain.ms);
          times[route].push(pair.plain.ms / REQUESTS);
          cpu[route].plain.push(pair.plain.cpu);
          cpu[route].scoped.push(pair.guarded.cpu);
        }
      }
      const result = Object.fromEntries(ROUTES.map((r) => [r, median(ratios[r])])) as Ratios;
      (results[db] ??= {})[phase] = result;
      console.log(`${db} ${phase}: ${counts.join('; ')}`);
      console.log(
        `${db} ${phase}: scoped / unscoped, median of ${ROUNDS} rounds of ${REQUESTS} requests: ` +
          ROUTES.map(
            (r) =>
              `${r} ${result[r].toFixed(3)} (unscoped ${median(times[r]).toFixed(3)} ms/request)`,
          ).join(', '),
      );
      const cpuLine = (list: Cpu[]) =>
        `app ${median(list.map((c) => c.app)).toFixed(0)}, database ${median(list.map((c) => c.db)).toFixed(0)}`;
      for (const r of ROUTES) {
        console.log(
          `${db} ${phase}: ${r} CPU µs per request, unscoped ${cpuLine(cpu[r].plain)}; scoped ${cpuLine(cpu[r].scoped)}`,
        );
      }
    };
    await measure('same rows');
    await withKnex(db, url, (knex) => seedHidden(knex, db));
    await measure('plus hidden rows');
  } finally {
    await server.stop();
    await dropDatabase(db, 'slicekit_bench_scope');
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(
  `load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
console.log(JSON.stringify({ bench: 'scope', rows: ROWS, rounds: ROUNDS, ratios: results }));
