// Benchmark of the list-query engine against hand-written Knex queries returning the same rows,
// on PostgreSQL, MySQL/MariaDB and SQLite, alternating in one run. The table (1,000,000 rows by
// default) is generated inside each database and kept between runs. The last line printed is one
// JSON object with the median time ratios.
//
//   npm run bench:list                  BENCH_ROWS=1000000 BENCH_ITERATIONS=15
//   BENCH_DATABASES=sqlite,postgres npm run bench:list
//   BENCH_RELATION_ORDERS=1000000 BENCH_RELATIONS=0   the relations scenario (bench/list-relations.ts)
//   BENCH_DB=slicekit_bench_big   another database (and .bench-cache/big.sqlite) for another size
//   BENCH_QUERIES=0 BENCH_SHAPES=deep_page,count_none   only those shapes against the limit
//   BENCH_WARM_UP_MS=0   no untimed warm-up of the quick shapes against the limit (default 10000)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  defineListResource,
  listQueryAfterCreate,
  parseListQuery,
  runListQuery,
} from '../runtime/src/list-query/index.js'; // from source: `npm run bench:list` passes no export condition
import { engineQuery, ensureRelationTables, handWrittenQuery, ORDERS } from './list-relations.js';
import { benchLimits, type LimitResult } from './list-limits.js';
import { benchShop } from './list-shop.js';

type Dialect = 'postgres' | 'mysql' | 'sqlite';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 15);
const DATABASES = (process.env.BENCH_DATABASES ?? 'postgres,mysql,sqlite').split(',') as Dialect[];
const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
// BENCH_DB names the database (PostgreSQL, MySQL) the tables are kept in, for a run of its own size.
const DB_NAME = process.env.BENCH_DB ?? 'slicekit_bench_list';
// BENCH_LIMITS=0 leaves out the engine-against-the-limit shapes (bench/list-limits.ts).
const LIMITS = process.env.BENCH_LIMITS !== '0';
const limitRows: {
  dialect: Dialect;
  results: LimitResult[];
  write: { indexed: number; plain: number };
}[] = [];
// BENCH_RELATIONS=0 leaves the relations scenario out (its tables take a while to generate).
const RELATIONS = process.env.BENCH_RELATIONS !== '0';
const CACHE = join(process.cwd(), '.bench-cache');
/** Raised when the generated rows change, so a kept table is made again. */
const DATA_VERSION = 2;

const resource = defineListResource({
  table: 'bench_items',
  audited: true,
  dto: {
    type: 'object',
    required: ['id', 'name', 'price', 'quantity', 'isActive', 'status', 'createdOn'],
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      code: { type: ['string', 'null'] },
      price: { type: 'number' },
      quantity: { type: 'integer' },
      isActive: { type: 'boolean' },
      status: { type: 'string', enum: ['draft', 'active', 'archived'] },
      createdOn: { type: 'string', format: 'date-time' },
    },
  },
});

async function connect(dialect: Dialect): Promise<Knex> {
  const url = (base: string) => {
    const u = new URL(base);
    u.pathname = `/${DB_NAME}`;
    return u.toString();
  };
  if (dialect === 'sqlite') {
    mkdirSync(CACHE, { recursive: true });
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(CACHE, `${DB_NAME.replace('slicekit_bench_', '')}.sqlite`) },
      useNullAsDefault: true,
      pool: { afterCreate: listQueryAfterCreate() },
    });
  }
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const exists = await admin.query('select 1 from pg_database where datname = $1', [DB_NAME]);
    if (exists.rowCount === 0) await admin.query(`create database ${DB_NAME}`);
    await admin.end();
    return knexFactory({
      client: 'pg',
      connection: url(PG_URL),
      pool: {
        min: 1,
        max: 4,
        // Index builds over millions of rows sort in memory rather than on disk.
        afterCreate: (conn: pg.Client, done: (error: Error | null, conn: pg.Client) => void) => {
          conn.query("SET maintenance_work_mem = '512MB'").then(
            () => done(null, conn),
            (error: Error) => done(error, conn),
          );
        },
      },
    });
  }
  const admin = await mysql.createConnection({ uri: MYSQL_URL });
  await admin.query(
    `create database if not exists ${DB_NAME} character set utf8mb4 collate utf8mb4_unicode_ci`,
  );
  await admin.end();
  return knexFactory({
    client: 'mysql2',
    connection: {
      uri: url(MYSQL_URL),
      supportBigNumbers: true,
      charset: 'utf8mb4',
    } as Knex.MySql2ConnectionConfig,
    pool: { min: 1, max: 4 },
  });
}

/** SQL computing each column from the row number `n`, per dialect. */
function generatorSql(dialect: Dialect): string {
  // Each part in parentheses: SQLite's || binds tighter than %, so 'Item ' || n % 7 would be
  // ('Item ' || n) % 7, a number.
  const cat = (...parts: string[]) =>
    dialect === 'mysql'
      ? `CONCAT(${parts.join(', ')})`
      : parts.map((part) => `(${part})`).join(' || ');
  const created =
    dialect === 'postgres'
      ? `TIMESTAMPTZ '2024-01-01 00:00:00+00' + make_interval(secs => (n * 13) % 31536000)`
      : dialect === 'mysql'
        ? `TIMESTAMPADD(SECOND, (n * 13) % 31536000, '2024-01-01 00:00:00')`
        : `1704067200000 + ((n * 13) % 31536000) * 1000`;
  return `SELECT n, ${cat(`'Item '`, `(n * 7919) % 1000003`)},
    CASE WHEN n % 4 = 0 THEN NULL ELSE ${cat(`'C'`, `n % 997`)} END,
    ((n * 37) % 10000) / 100.0, n % 50, ${dialect === 'postgres' ? 'n % 3 <> 0' : 'CASE WHEN n % 3 <> 0 THEN 1 ELSE 0 END'},
    CASE n % 3 WHEN 0 THEN 'draft' WHEN 1 THEN 'active' ELSE 'archived' END, ${created}`;
}

async function ensureTable(knex: Knex, dialect: Dialect): Promise<void> {
  if (await knex.schema.hasTable('bench_meta')) {
    const meta = await knex('bench_meta').first();
    // A table from before DATA_VERSION (SQLite's names and codes were numbers) is made again.
    if (Number(meta?.rows) === ROWS && Number(meta?.version) === DATA_VERSION) return;
  }
  const started = performance.now();
  await knex.schema.dropTableIfExists('bench_items');
  await knex.schema.dropTableIfExists('bench_meta');
  await knex.schema.createTable('bench_items', (t) => {
    t.integer('id').primary();
    t.string('name', 150).notNullable();
    t.string('code', 50).nullable();
    t.decimal('price', 12, 2).notNullable();
    t.integer('quantity').notNullable();
    t.boolean('is_active').notNullable();
    t.string('status', 20).notNullable();
    t.datetime('created_on', { precision: 3 }).notNullable();
  });
  const columns = 'id, name, code, price, quantity, is_active, status, created_on';
  if (dialect === 'postgres') {
    await knex.raw(
      `INSERT INTO bench_items (${columns}) ${generatorSql(dialect)} FROM generate_series(1::bigint, ${ROWS}) AS s(n)`,
    );
  } else if (dialect === 'sqlite') {
    await knex.raw(
      `INSERT INTO bench_items (${columns}) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS}) ${generatorSql(dialect)} FROM s`,
    );
  } else {
    // Digits cross-joined: portable to MySQL and MariaDB, no recursion limit to raise.
    const width = Math.max(1, Math.ceil(Math.log10(ROWS + 1)));
    const tables = Array.from(
      { length: width },
      (_, i) =>
        `(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d${i}`,
    );
    const n = Array.from({ length: width }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
    await knex.raw(
      `INSERT INTO bench_items (${columns}) SELECT * FROM (${generatorSql(dialect)} FROM (SELECT ${n} + 1 AS n FROM ${tables.join(' CROSS JOIN ')}) nums WHERE n <= ${ROWS}) gen`,
    );
  }
  await knex.schema.alterTable('bench_items', (t) => {
    t.index(['created_on', 'id']);
    t.index(['price']);
    t.index(['quantity']);
  });
  if (dialect !== 'mysql')
    await knex.raw(dialect === 'postgres' ? 'ANALYZE bench_items' : 'ANALYZE');
  else await knex.raw('ANALYZE TABLE bench_items');
  await knex.schema.createTable('bench_meta', (t) => {
    t.integer('rows');
    t.integer('version');
  });
  await knex('bench_meta').insert({ rows: ROWS, version: DATA_VERSION });
  console.log(
    `  generated ${ROWS} rows on ${dialect} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

type Row = Record<string, unknown>;
const toDto = (r: Row) => ({
  id: Number(r.id),
  name: r.name,
  code: r.code,
  price: Number(r.price),
  quantity: Number(r.quantity),
  isActive: Boolean(r.is_active),
  status: r.status,
  createdOn: new Date(r.created_on as string | number | Date).toISOString(),
});
const COLUMNS = ['id', 'name', 'code', 'price', 'quantity', 'is_active', 'status', 'created_on'];

/**
 * What a developer writes by hand for the same page: the page, then the count. With `windowed`,
 * one query instead, counting with `COUNT(*) OVER ()` (the alternative the engine measured and
 * did not take; it has no count on a page past the end).
 */
async function handWritten(
  knex: Knex,
  where: (qb: Knex.QueryBuilder) => void,
  order: [string, 'asc' | 'desc'][],
  pageNumber: number,
  pageSize: number,
  windowed = false,
) {
  const page = knex('bench_items').select(COLUMNS);
  if (windowed) page.select(knex.raw('COUNT(*) OVER () AS window_total'));
  where(page);
  for (const [column, direction] of order) page.orderBy(column, direction);
  const rows: Row[] = await page.limit(pageSize).offset((pageNumber - 1) * pageSize);
  if (windowed) {
    return { items: rows.map(toDto), totalItemCount: Number(rows[0]?.window_total ?? 0) };
  }
  const count = knex('bench_items').count({ total: '*' });
  where(count);
  const [{ total }] = (await count) as [{ total: number | string }];
  return { items: rows.map(toDto), totalItemCount: Number(total) };
}

interface BenchQuery {
  label: string;
  query: Record<string, string | string[]>;
  hand: (knex: Knex, dialect: Dialect, windowed?: boolean) => ReturnType<typeof handWritten>;
}

const like = (dialect: Dialect, column: string, pattern: string) => (qb: Knex.QueryBuilder) =>
  dialect === 'postgres'
    ? qb.whereRaw(`?? ILIKE ?`, [column, pattern])
    : qb.where(column, 'like', pattern);

const queries: BenchQuery[] = [
  {
    label: 'filter + search + order + page',
    query: {
      filter: ['isActive:Equal:true', 'price:GreaterThan:50'],
      search: '1234',
      orderBy: 'price',
      desc: 'true',
      pageSize: '20',
    },
    hand: (knex, d, windowed) =>
      handWritten(
        knex,
        (qb) =>
          qb
            .where('is_active', true)
            .where('price', '>', 50)
            .where((q) => q.where(like(d, 'name', '%1234%')).orWhere(like(d, 'code', '%1234%'))),
        [
          ['price', 'desc'],
          ['id', 'desc'],
        ],
        1,
        20,
        windowed,
      ),
  },
  {
    label: 'deep page (default order)',
    query: { pageNumber: '2000', pageSize: '50' },
    hand: (knex, _d, windowed) =>
      handWritten(
        knex,
        () => undefined,
        [
          ['created_on', 'desc'],
          ['id', 'desc'],
        ],
        2000,
        50,
        windowed,
      ),
  },
  {
    label: 'IN lists + page',
    query: {
      filter: ['quantity:In:3,7,11,19,23', 'status:In:draft,archived'],
      pageSize: '50',
      pageNumber: '3',
    },
    hand: (knex, _d, windowed) =>
      handWritten(
        knex,
        (qb) => qb.whereIn('quantity', [3, 7, 11, 19, 23]).whereIn('status', ['draft', 'archived']),
        [
          ['created_on', 'desc'],
          ['id', 'desc'],
        ],
        3,
        50,
        windowed,
      ),
  },
];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const time = async (fn: () => Promise<unknown>) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

interface Result {
  dialect: Dialect;
  label: string;
  engine: number;
  hand: number;
  uncounted: number;
  /** The hand-written page counted with COUNT(*) OVER () in the same query. */
  windowed: number;
}

async function benchDialect(dialect: Dialect): Promise<Result[]> {
  const knex = await connect(dialect);
  try {
    const results: Result[] = [];
    if (process.env.BENCH_QUERIES !== '0') await ensureTable(knex, dialect);
    // BENCH_QUERIES=0 leaves these three out (the shapes against the limit still run).
    for (const q of process.env.BENCH_QUERIES === '0' ? [] : queries) {
      const parsed = parseListQuery(resource, q.query);
      // Counted exactly, as the hand-written query counts (the default would estimate past 10,000).
      const engine = () => runListQuery(knex, resource, parsed, { count: 'exact' });
      const uncounted = () => runListQuery(knex, resource, parsed, { count: 'none' });
      const hand = () => q.hand(knex, dialect);
      const [a, b] = await Promise.all([engine(), hand()]);
      if (
        JSON.stringify(a.items) !== JSON.stringify(b.items) ||
        a.totalItemCount !== b.totalItemCount
      ) {
        throw new Error(`${dialect} "${q.label}": the engine and the hand-written query disagree`);
      }
      const windowed = () => q.hand(knex, dialect, true);
      const w = await windowed();
      // A page past the end has no row to carry the window count: that is its known gap.
      if (
        JSON.stringify(w.items) !== JSON.stringify(b.items) ||
        (w.items.length > 0 && w.totalItemCount !== b.totalItemCount)
      ) {
        throw new Error(`${dialect} "${q.label}": the window-function query disagrees`);
      }
      const runs = { engine, hand, uncounted, windowed };
      type Which = keyof typeof runs;
      const times: Record<Which, number[]> = { engine: [], hand: [], uncounted: [], windowed: [] };
      for (let i = 0; i < ITERATIONS + 2; i++) {
        // Alternate the order so neither side always runs on a warmer cache.
        const order: Which[] =
          i % 2
            ? ['hand', 'engine', 'windowed', 'uncounted']
            : ['engine', 'hand', 'uncounted', 'windowed'];
        for (const which of order) {
          const ms = await time(runs[which]);
          if (i >= 2) times[which].push(ms);
        }
      }
      results.push({
        dialect,
        label: q.label,
        engine: median(times.engine),
        hand: median(times.hand),
        uncounted: median(times.uncounted),
        windowed: median(times.windowed),
      });
    }
    // The relations scenario against hand-written Knex belongs with those queries.
    if (RELATIONS && process.env.BENCH_QUERIES !== '0') {
      results.push(await benchRelations(knex, dialect));
    }
    if (LIMITS) {
      const limits = await benchLimits(knex, dialect, ROWS, ITERATIONS);
      // The relations page on the generated shop schema (bench/list-shop.ts).
      if (RELATIONS) {
        const shop = await benchShop(knex, dialect, ORDERS, ITERATIONS);
        limits.results.push({ key: 'relations_page', ...shop });
      }
      limitRows.push({ dialect, ...limits });
    }
    return results;
  } finally {
    await knex.destroy();
  }
}

/** The relations scenario (bench/list-relations.ts), timed like the queries above. */
async function benchRelations(knex: Knex, dialect: Dialect): Promise<Result> {
  await ensureRelationTables(knex, dialect);
  const engine = engineQuery(knex);
  const hand = handWrittenQuery(knex, dialect);
  const [a, b] = await Promise.all([engine(), hand()]);
  if (
    JSON.stringify(a.items) !== JSON.stringify(b.items) ||
    a.totalItemCount !== b.totalItemCount ||
    a.items.length === 0
  ) {
    throw new Error(`${dialect} relations: the engine and the hand-written queries disagree`);
  }
  const times = { engine: [] as number[], hand: [] as number[] };
  for (let i = 0; i < ITERATIONS + 2; i++) {
    const order = i % 2 ? (['hand', 'engine'] as const) : (['engine', 'hand'] as const);
    for (const which of order) {
      const ms = await time(which === 'engine' ? engine : hand);
      if (i >= 2) times[which].push(ms);
    }
  }
  const label = `relations: ${ORDERS} orders by customer.name`;
  return {
    dialect,
    label,
    engine: median(times.engine),
    hand: median(times.hand),
    uncounted: NaN,
    windowed: NaN,
  };
}

const all: Result[] = [];
const summary: Record<string, number | null> = { rows: ROWS };
const relationsSummary: Record<string, number | null> = RELATIONS
  ? { relation_orders: ORDERS }
  : {};
for (const dialect of ['postgres', 'mysql', 'sqlite'] as const) {
  const key = `${dialect}_engine_vs_handwritten`;
  if (!DATABASES.includes(dialect)) {
    summary[key] = null;
    continue;
  }
  const relationsKey = `${dialect}_relations_engine_vs_handwritten`;
  try {
    const results = await benchDialect(dialect);
    all.push(...results);
    const plain = results.filter((r) => !r.label.startsWith('relations'));
    summary[key] = Number(median(plain.map((r) => r.engine / r.hand)).toFixed(3));
    const relations = results.find((r) => r.label.startsWith('relations'));
    relationsSummary[relationsKey] = relations
      ? Number((relations.engine / relations.hand).toFixed(3))
      : null;
  } catch (error) {
    console.error(`  ${dialect}: skipped (${(error as Error).message})`);
    summary[key] = null;
    relationsSummary[relationsKey] = null;
  }
}

const pad = (text: string, width: number) => text.padEnd(width);
/** A time, or `-` where the scenario has none (the relations one measures no count variants). */
const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(2));
console.log(`\nlist query, ${ROWS} rows, median of ${ITERATIONS} runs each (ms)\n`);
console.log(
  `${pad('database', 10)}${pad('query', 44)}${pad('engine', 10)}${pad('by hand', 10)}${pad('ratio', 8)}` +
    `${pad('no count', 10)}${pad('count cost', 12)}window count`,
);
for (const r of all) {
  console.log(
    `${pad(r.dialect, 10)}${pad(r.label, 44)}${pad(r.engine.toFixed(2), 10)}${pad(r.hand.toFixed(2), 10)}` +
      `${pad((r.engine / r.hand).toFixed(3), 8)}${pad(ms(r.uncounted), 10)}` +
      `${pad(ms(r.engine - r.uncounted), 12)}${ms(r.windowed)}`,
  );
}
console.log(
  '\ncount cost = engine - no count; window count = the hand-written page counted with COUNT(*) OVER ()\n',
);
const limits: Record<string, number | null> = {};
if (limitRows.length) {
  console.log(
    `the generated Product table (${ROWS} rows, 10 owners), engine as generated against the limit (ms);\n` +
      'page shapes count exactly on both sides, count_* shapes are the first page per count mode\n',
  );
  console.log(
    `${pad('database', 10)}${pad('shape', 20)}${pad('engine', 10)}${pad('limit', 10)}ratio`,
  );
  for (const { dialect, results, write } of limitRows) {
    for (const r of results) {
      limits[`${dialect}_${r.key}_vs_limit`] = Number((r.engine / r.limit).toFixed(3));
      console.log(
        `${pad(dialect, 10)}${pad(r.key, 20)}${pad(r.engine.toFixed(2), 10)}${pad(r.limit.toFixed(2), 10)}${(r.engine / r.limit).toFixed(3)}`,
      );
    }
    // What the estimate adds to the page, against the page itself (target: within 2x).
    const none = results.find((r) => r.key === 'count_none');
    const estimated = results.find((r) => r.key === 'count_estimated');
    if (none && estimated) {
      const cost = Math.max(0, estimated.engine - none.engine);
      limits[`${dialect}_estimated_count_vs_page`] = Number((cost / none.engine).toFixed(3));
      console.log(
        `${pad(dialect, 10)}estimated count: ${cost.toFixed(2)} ms over the page's ${none.engine.toFixed(2)} ms (${(cost / none.engine).toFixed(2)}x)`,
      );
    }
    console.log(
      `${pad(dialect, 10)}write cost: ${write.indexed.toFixed(0)} rows/s with the search index, ${write.plain.toFixed(0)} without (${(write.plain / write.indexed).toFixed(2)}x)`,
    );
    limits[`${dialect}_insert_rows_per_s_search_index`] = Math.round(write.indexed);
    limits[`${dialect}_insert_rows_per_s_plain`] = Math.round(write.plain);
  }
  console.log('');
}
console.log(JSON.stringify({ ...summary, ...relationsSummary, ...limits }));
