// Deep pages by number, three ways side by side on the generated Product table (bench/list-limits.ts)
// of its own database: the engine reading the page with its OFFSET, the engine's deferred join
// (the page's ids first, over the index, then those rows), and the deferred join written by hand.
// Pages only (no count), one owner's rows, at several depths. Prints one line per database and
// depth, and a last JSON line of ratios (`<db>_<rows skipped>_offset_vs_deferred`, ...).
//
//   BENCH_ROWS=200000 BENCH_DATABASES=mysql,postgres,sqlite npm run bench:list-deep
//   BENCH_DEPTHS=1000,5000 the rows skipped (default 1,000, a quarter and half the owner's rows).
//   BENCH_DEEP_DB names the database (default slicekit_bench_deep: a table of its own size, apart
//   from `npm run bench:list`'s).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  listQueryAfterCreate,
  parseListQuery,
  runListQuery,
} from '../runtime/src/list-query/index.js';
import { ensureProducts, generateProduct, rowsOf } from './list-products.js';

type Dialect = 'postgres' | 'mysql' | 'sqlite';
const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 11);
const DATABASES = (process.env.BENCH_DATABASES ?? 'mysql,postgres,sqlite').split(',') as Dialect[];
const DB = process.env.BENCH_DEEP_DB ?? 'slicekit_bench_deep';
const OWNER = 'user3';
const PAGE = 20;
const COLUMNS =
  'id, name, price, is_discontinued, created_by, created_on, updated_by, updated_on, owned_by';

async function connect(d: Dialect): Promise<Knex> {
  if (d === 'sqlite') {
    mkdirSync('.bench-cache', { recursive: true });
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join('.bench-cache', `${DB}.sqlite`) },
      useNullAsDefault: true,
      pool: { afterCreate: listQueryAfterCreate() },
    });
  }
  if (d === 'postgres') {
    const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
    await admin.connect();
    const exists = await admin.query('select 1 from pg_database where datname = $1', [DB]);
    if (exists.rowCount === 0) await admin.query(`create database ${DB}`);
    await admin.end();
    return knexFactory({ client: 'pg', connection: `postgres://postgres@127.0.0.1:5432/${DB}` });
  }
  const admin = await mysql.createConnection({ uri: 'mysql://root@127.0.0.1:3306/test' });
  await admin.query(`create database if not exists ${DB} character set utf8mb4`);
  await admin.end();
  return knexFactory({
    client: 'mysql2',
    connection: { uri: `mysql://root@127.0.0.1:3306/${DB}`, charset: 'utf8mb4' },
  });
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const summary: Record<string, number> = { rows: ROWS };

for (const d of DATABASES) {
  const knex = await connect(d);
  try {
    const g = await generateProduct();
    await ensureProducts(knex, d, g, ROWS);
    const perOwner = ROWS / 10;
    const depths = process.env.BENCH_DEPTHS
      ? process.env.BENCH_DEPTHS.split(',').map(Number)
      : [1_000, Math.floor(perOwner / 4 / PAGE) * PAGE, Math.floor(perOwner / 2 / PAGE) * PAGE];
    for (const skipped of depths) {
      const query = parseListQuery(g.resource, {
        pageSize: String(PAGE),
        pageNumber: String(skipped / PAGE + 1),
      });
      const engine = (deferredJoinFrom: number) => async () => {
        const page = await runListQuery(knex, g.resource, query, {
          scope: (qb) => qb.where('products.owned_by', OWNER),
          count: 'none',
          deferredJoinFrom,
        });
        return page.items.map((i) => String((i as { id: unknown }).id));
      };
      const order = 'ORDER BY created_on DESC, id DESC';
      const hand = async () =>
        rowsOf(
          await knex.raw(
            `SELECT ${COLUMNS} FROM products WHERE id IN (SELECT id FROM (SELECT id FROM products ` +
              `WHERE owned_by = ? ${order} LIMIT ${PAGE} OFFSET ${skipped}) k) ${order}`,
            [OWNER],
          ),
        ).map((r) => String(r['id']));
      const ways = { offset: engine(1e12), deferred: engine(1), hand };
      const answers = await Promise.all(Object.values(ways).map((w) => w()));
      if (new Set(answers.map((a) => JSON.stringify(a))).size !== 1 || !answers[0]!.length) {
        throw new Error(`${d} at ${skipped}: the three ways disagree`);
      }
      const times: Record<string, number[]> = { offset: [], deferred: [], hand: [] };
      for (let i = 0; i < ITERATIONS + 2; i++) {
        const names = Object.keys(ways) as (keyof typeof ways)[];
        // Rotated, so no way always runs after the same one.
        for (const name of [...names.slice(i % 3), ...names.slice(0, i % 3)]) {
          const started = performance.now();
          await ways[name]();
          if (i >= 2) times[name]!.push(performance.now() - started);
        }
      }
      const [offset, deferred, limit] = ['offset', 'deferred', 'hand'].map((k) =>
        median(times[k]!),
      );
      console.log(
        `${d.padEnd(9)} skip ${String(skipped).padStart(6)}  offset ${offset!.toFixed(2)} ms  ` +
          `deferred ${deferred!.toFixed(2)} ms  hand-written deferred ${limit!.toFixed(2)} ms  ` +
          `offset/deferred ${(offset! / deferred!).toFixed(2)}  deferred/limit ${(deferred! / limit!).toFixed(2)}`,
      );
      summary[`${d}_${skipped}_offset_vs_deferred`] = Number((offset! / deferred!).toFixed(3));
      summary[`${d}_${skipped}_deferred_vs_limit`] = Number((deferred! / limit!).toFixed(3));
    }
  } finally {
    await knex.destroy();
  }
}
console.log(JSON.stringify(summary));
