// The engine against the limit, part of `npm run bench:list`: the sample Product's table made by
// its *generated* create migration (with `price` sortable and `isDiscontinued` filterable, and
// the search index), BENCH_ROWS rows over ten owners, and per query shape the generated app's list
// query (engine, the caller's rows, an exact count unless the shape names a count mode) beside
// the best hand-written SQL for the same answer on the same table and indexes (limit): page and
// count, a deferred join for a deep page by number, a keyset page for the cursor, the FTS table
// itself for SQLite's search, and per count mode the same first page with no count, the
// database's estimate (EXPLAIN; SQLite a row past the threshold) or a client's bounded exact
// count. Plus the write cost of the search index: rows inserted per second into the table with
// it and into one without.
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import {
  parseListQuery,
  runListQuery,
  type CountMode,
  type ListResource,
} from '../runtime/src/list-query/index.js';
import { reuseEstimates } from '../runtime/src/list-query/estimates.js';
import {
  ensureProducts,
  fillSql,
  generateProduct,
  rowsOf,
  type Generated,
} from './list-products.js';

export { generateProduct, rowsOf };

type Dialect = 'postgres' | 'mysql' | 'sqlite';
type Row = Record<string, unknown>;
const OWNER = 'user3';
const COLUMNS = [
  'id',
  'name',
  'price',
  'is_discontinued',
  'created_by',
  'created_on',
  'updated_by',
  'updated_on',
];

const ci = (d: Dialect, column: string) =>
  d === 'postgres' ? `${column} ILIKE ?` : `${column} LIKE ?`;

/** Where a cursor shape's page starts: the engine's cursor and the row's key for the limit. */
interface Start {
  cursor: string;
  key: Row;
}

interface Answer {
  ids: string[];
  total: number | null;
}

/** A shape: the engine's query string and the limit's hand-written SQL for the same answer. */
export interface Shape {
  key: string;
  query: Record<string, string | string[]>;
  /** How the engine counts. @default 'exact' */
  count?: CountMode;
  /** The engine's `exactCountMax` (a client's `Prefer: count=exact` through `listHandler`). */
  exactCountMax?: number;
  /** Run once, untimed: where a cursor page starts. */
  start?(knex: Knex, resource: ListResource<unknown>): Promise<Start>;
  limit(knex: Knex, d: Dialect, start?: Start): Promise<Answer>;
}

/** The page alone: what a list costs with no count. */
async function pageOnly(knex: Knex, page: string, bindings: Knex.RawBinding[]): Promise<Answer> {
  const rows = rowsOf(await knex.raw(page, bindings));
  return { ids: rows.map((r) => String(r['id'])), total: null };
}

/**
 * The best estimate written by hand, as the engine's `estimated` mode answers it: PostgreSQL's
 * planner rows, MySQL's EXPLAIN rows x filtered, SQLite whether a row follows the first
 * `threshold`; an exact count below the threshold.
 */
async function estimate(
  knex: Knex,
  d: Dialect,
  rows: string,
  bindings: Knex.RawBinding[],
  // The engine's default bound (the dialect's `exactCountBelow`).
  threshold = d === 'sqlite' ? 5_000 : 10_000,
): Promise<number> {
  if (d === 'sqlite') {
    // Whether a row follows the first `threshold` (skipped in the index), else the exact count:
    // cheaper than a count stopped at threshold + 1 (SELECT COUNT(*) FROM (... LIMIT n)).
    const past = rowsOf(await knex.raw(`${rows} LIMIT 1 OFFSET ${threshold}`, bindings));
    if (past.length > 0) return threshold + 1;
    const [r] = rowsOf(await knex.raw(`SELECT COUNT(*) AS total FROM (${rows}) x`, bindings));
    return Number(r?.['total']);
  }
  const plan = rowsOf(
    await knex.raw(`${d === 'postgres' ? 'EXPLAIN (FORMAT JSON)' : 'EXPLAIN'} ${rows}`, bindings),
  );
  const guess =
    d === 'postgres'
      ? Number(
          (plan[0]?.['QUERY PLAN'] as [{ Plan: { 'Plan Rows': number } }])[0].Plan['Plan Rows'],
        )
      : Number(plan[0]?.['rows']) * (Number(plan[0]?.['filtered'] ?? 100) / 100);
  if (Math.round(guess) >= threshold) return Math.round(guess);
  const [r] = rowsOf(await knex.raw(`SELECT COUNT(*) AS total FROM (${rows}) x`, bindings));
  return Number(r?.['total']);
}

async function pageAndCount(
  knex: Knex,
  page: string,
  count: string,
  bindings: Knex.RawBinding[],
  tail: Knex.RawBinding[] = [],
) {
  const list = rowsOf(await knex.raw(page, [...bindings, ...tail]));
  const c = rowsOf(await knex.raw(count, bindings));
  return { ids: list.map((r) => String(r['id'])), total: Number(c[0]?.['total']) };
}

const cols = COLUMNS.join(', ');
const ORDER = 'ORDER BY created_on DESC, id DESC';
const FIRST_PAGE = `SELECT ${cols} FROM products WHERE owned_by = ? ${ORDER} LIMIT 20`;
/** A client's exact count reads at most this many rows (the generated list's exactCountMax). */
const CAP = 100_000;
/** The deep pages start after this many rows: page 2000 of 20, or halfway for a small table. */
const DEEP = Math.min(
  39_980,
  Math.floor(Number(process.env.BENCH_ROWS ?? 1_000_000) / 10 / 2 / 20) * 20,
);
export const SHAPES: Shape[] = [
  {
    key: 'first_page',
    query: { pageSize: '20' },
    limit: (knex) =>
      pageAndCount(
        knex,
        `SELECT ${cols} FROM products WHERE owned_by = ? ${ORDER} LIMIT 20`,
        'SELECT COUNT(*) AS total FROM products WHERE owned_by = ?',
        [OWNER],
      ),
  },
  {
    key: 'filter_order',
    query: {
      filter: ['isDiscontinued:Equal:true', 'price:GreaterThan:50'],
      orderBy: 'price',
      desc: 'true',
      pageSize: '20',
    },
    limit: (knex) =>
      pageAndCount(
        knex,
        `SELECT ${cols} FROM products WHERE owned_by = ? AND is_discontinued = ? AND price > ? ORDER BY price DESC, id DESC LIMIT 20`,
        'SELECT COUNT(*) AS total FROM products WHERE owned_by = ? AND is_discontinued = ? AND price > ?',
        [OWNER, true, 50],
      ),
  },
  {
    key: 'search',
    query: { search: '12345', pageSize: '20' },
    limit: (knex, d) => {
      const p = '%12345%';
      if (d === 'sqlite') {
        const match = `rowid IN (SELECT rowid FROM products__search WHERE products__search MATCH '"12345"')`;
        const where = `owned_by = ? AND ${match} AND (name LIKE ? OR created_by LIKE ? OR updated_by LIKE ?)`;
        return pageAndCount(
          knex,
          `SELECT ${cols} FROM products WHERE ${where} ${ORDER} LIMIT 20`,
          `SELECT COUNT(*) AS total FROM products WHERE ${where}`,
          [OWNER, p, p, p],
        );
      }
      const where = `owned_by = ? AND (${ci(d, 'name')} OR ${ci(d, 'created_by')} OR ${ci(d, 'updated_by')})`;
      return pageAndCount(
        knex,
        `SELECT ${cols} FROM products WHERE ${where} ${ORDER} LIMIT 20`,
        `SELECT COUNT(*) AS total FROM products WHERE ${where}`,
        [OWNER, p, p, p],
      );
    },
  },
  {
    key: 'deep_page',
    query: { pageNumber: String(DEEP / 20 + 1), pageSize: '20' },
    // A deferred join: the offset walks the index only, then 20 rows are read.
    limit: (knex) =>
      pageAndCount(
        knex,
        `SELECT ${cols} FROM products WHERE id IN (SELECT id FROM (SELECT id FROM products WHERE owned_by = ? ${ORDER} LIMIT 20 OFFSET ${DEEP}) k) ${ORDER}`,
        'SELECT COUNT(*) AS total FROM products WHERE owned_by = ?',
        [OWNER],
      ),
  },
  {
    key: 'deep_cursor',
    query: { pageSize: '20' },
    // The nextCursor of page 1999, and the key of its last row for the limit.
    async start(knex, resource) {
      const before = parseListQuery(resource, { pageSize: '20', pageNumber: String(DEEP / 20) });
      const page = await runListQuery(knex, resource, before, {
        scope: (qb) => qb.where('products.owned_by', OWNER),
        count: 'none',
      });
      const [key] = rowsOf(
        await knex.raw(
          `SELECT created_on, id FROM products WHERE owned_by = ? ${ORDER} LIMIT 1 OFFSET ${DEEP - 1}`,
          [OWNER],
        ),
      );
      return { cursor: page.nextCursor!, key: key! };
    },
    // A keyset page: a row value where the database walks the index by it (PostgreSQL, SQLite),
    // the expanded form on MySQL/MariaDB.
    limit: (knex, d, start) => {
      const { created_on: at, id } = start!.key;
      const after =
        d === 'mysql'
          ? '(created_on < ? OR (created_on = ? AND id < ?))'
          : '(created_on, id) < (?, ?)';
      const keys = (d === 'mysql' ? [at, at, id] : [at, id]) as Knex.RawBinding[];
      return pageAndCount(
        knex,
        `SELECT ${cols} FROM products WHERE owned_by = ? AND ${after} ${ORDER} LIMIT 20`,
        'SELECT COUNT(*) AS total FROM products WHERE owned_by = ?',
        [OWNER],
        keys,
      );
    },
  },
  // The count modes, on the first page: no count, the estimate, a client's exact count bounded
  // at 100,000 rows (the generated list's default exactCountMax).
  {
    key: 'count_none',
    query: { pageSize: '20' },
    count: 'none',
    limit: (knex) => pageOnly(knex, FIRST_PAGE, [OWNER]),
  },
  {
    key: 'count_estimated',
    query: { pageSize: '20' },
    count: 'estimated',
    limit: async (knex, d) => {
      const page = await pageOnly(knex, FIRST_PAGE, [OWNER]);
      const total = await estimate(knex, d, 'SELECT 1 FROM products WHERE owned_by = ?', [OWNER]);
      return { ids: page.ids, total };
    },
  },
  {
    key: 'count_exact_capped',
    query: { pageSize: '20' },
    count: 'exact',
    exactCountMax: CAP,
    // The count stopped past the cap, and past it the estimate (a lower bound on SQLite), as the
    // engine answers: the same numbers, so the same work.
    limit: async (knex, d) => {
      const page = await pageOnly(knex, FIRST_PAGE, [OWNER]);
      const rows = 'SELECT 1 FROM products WHERE owned_by = ?';
      const [r] = rowsOf(
        await knex.raw(`SELECT COUNT(*) AS total FROM (${rows} LIMIT ${CAP + 1}) x`, [OWNER]),
      );
      const counted = Number(r?.['total']);
      if (counted <= CAP) return { ids: page.ids, total: counted };
      const guess = d === 'sqlite' ? 0 : await estimate(knex, d, rows, [OWNER], 0);
      return { ids: page.ids, total: Math.max(guess, counted) };
    },
  },
];

/**
 * Runs the engine as the generated list route does: the query string parsed on every request,
 * the caller's rows, the shape's count.
 */
export function engineRun(
  knex: Knex,
  resource: ListResource<unknown>,
  shape: Shape,
  start?: Start,
) {
  const queryString = { ...shape.query, ...(start ? { cursor: start.cursor } : {}) };
  return async (): Promise<Answer> => {
    const parsed = parseListQuery(resource, queryString);
    const page = await runListQuery(knex, resource, parsed, {
      scope: (qb) => qb.where('products.owned_by', OWNER),
      count: shape.count ?? 'exact',
      ...(shape.exactCountMax ? { exactCountMax: shape.exactCountMax } : {}),
    });
    return {
      ids: page.items.map((i) => String((i as Row)['id'])),
      total: page.totalItemCount,
    };
  };
}

/** Rows per second inserted (batches of 500, rolled back) with the search index and without. */
export async function writeCost(
  knex: Knex,
  d: Dialect,
  g: Generated,
): Promise<{ indexed: number; plain: number }> {
  const search = await import('../runtime/src/database/search-index.js');
  const index = search.searchIndexMigration({ table: 'products', columns: g.searchColumns });
  // In a transaction rolled back: the rows go, and a dropped index comes back as it was.
  const rate = async (withIndex: boolean) => {
    const trx = await knex.transaction();
    try {
      if (!withIndex) await index.down(trx);
      const count = 5000;
      const base = 50_000_000;
      const started = performance.now();
      for (let from = base; from < base + count; from += 500) {
        await trx.raw(fillSql(d, 'products', from, from + 499));
      }
      return count / ((performance.now() - started) / 1000);
    } finally {
      await trx.rollback();
    }
  };
  const indexed = [await rate(true), await rate(true), await rate(true)];
  const plain = [await rate(false), await rate(false), await rate(false)];
  const mid = (v: number[]) => [...v].sort((a, b) => a - b)[1]!;
  return { indexed: mid(indexed), plain: mid(plain) };
}

/** A quick shape's untimed calls before it is timed: this many, or for at most this long. */
const WARM_UP_CALLS = 4000;
// At most 10 s: on a slow machine 2 s stopped 2,200 pairs in (count_none on SQLite 1.90 against
// 1.53 after 4,000).
const WARM_UP_MS = Number(process.env.BENCH_WARM_UP_MS ?? 10_000);

const time = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

export interface LimitResult {
  key: string;
  engine: number;
  limit: number;
}

/** Each shape timed, engine and limit alternating, after checking they answer alike. */
export async function benchLimits(
  knex: Knex,
  d: Dialect,
  rows: number,
  iterations: number,
): Promise<{ results: LimitResult[]; write: { indexed: number; plain: number } }> {
  const g = await generateProduct();
  await ensureProducts(knex, d, g, rows);
  // The estimate itself is measured: the engine asks for it on every run, as the hand-written
  // side does, rather than reusing it within a second.
  reuseEstimates(knex, 0);
  const results: LimitResult[] = [];
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  // BENCH_SHAPES=deep_page,count_none runs only those (the write cost still runs).
  const only = process.env.BENCH_SHAPES?.split(',');
  for (const shape of SHAPES.filter((s) => !only || only.includes(s.key))) {
    const start = await shape.start?.(knex, g.resource);
    const engine = engineRun(knex, g.resource, shape, start);
    const limit = () => shape.limit(knex, d, start);
    // Once untimed, as a warm-up.
    await engine();
    const [a, b] = [await engine(), await limit()];
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      // Not timed (not the same answer), and the other shapes still are.
      console.error(
        `  ${d} ${shape.key}: the engine and the limit disagree (${a.ids.length} ids, total ${a.total} against ${b.ids.length}, ${b.total}); not timed`,
      );
      continue;
    }
    const times = { engine: [] as number[], limit: [] as number[] };
    // A shape of a few milliseconds runs 30 times as often: on a loaded machine one run of it is
    // mostly the wait for a core, and only many runs give a median worth reading.
    const quick = (await time(engine)) + (await time(limit)) < 10;
    // A quick shape is warmed up untimed, both sides alike (BENCH_WARM_UP_MS=0 leaves it out):
    // V8 optimises the engine's longer path (parse, Knex builder and compiler, rows to DTOs,
    // cursor) only after some 2,000 calls. count_none on SQLite, calls in a row: the engine's
    // median 142-167 us over the first 1,000, 95-109 over the next, 77-80 from the 4,000th on;
    // the limit's 60, 53, 51. The 2,100 timed runs of BENCH_ITERATIONS=70 would measure mostly
    // that warm-up, which a server goes through once, not its requests.
    const until = performance.now() + WARM_UP_MS;
    for (let i = 0; quick && i < WARM_UP_CALLS && performance.now() < until; i++) {
      await engine();
      await limit();
    }
    const runs = quick ? iterations * 30 : iterations;
    for (let i = 0; i < runs + 2; i++) {
      const order = i % 2 ? (['limit', 'engine'] as const) : (['engine', 'limit'] as const);
      for (const which of order) {
        const ms = await time(which === 'engine' ? engine : limit);
        if (i >= 2) times[which].push(ms);
      }
    }
    results.push({ key: shape.key, engine: median(times.engine), limit: median(times.limit) });
    const [e, l] = [median(times.engine), median(times.limit)];
    console.log(
      `  ${d} ${shape.key}: ${e.toFixed(2)} ms against ${l.toFixed(2)} (${(e / l).toFixed(3)})`,
    );
  }
  return { results, write: await writeCost(knex, d, g) };
}
