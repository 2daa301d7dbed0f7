// The relations page on the *generated* schema, part of `npm run bench:list`: the shop example
// (docs/examples/shop: Customer, Tag, Order, OrderLine) generated with `customer.name` sortable,
// its migrations run, BENCH_RELATION_ORDERS orders over a tenth as many customers, each with a
// line and a tag. One page filtered and ordered by `customer.name`, with the nested customer, the
// lines and the tags, read by the generated Order list (engine, exact count) and by the best
// hand-written SQL for the same ids and count on the same tables and indexes (limit), alternating.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../generators/entity/index.js';
import {
  parseListQuery,
  runListQuery,
  type ListResource,
} from '../runtime/src/list-query/index.js';
import { rowsOf } from './list-limits.js';
import { numbers } from './list-relations.js';

type Dialect = 'postgres' | 'mysql' | 'sqlite';
type Row = Record<string, unknown>;
interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const PREFIX = 'Customer 12';
const CHUNK = 1_000_000;

/** The shop's slices generated into a scratch folder: migrations in order, the Order list. */
async function generateShop(): Promise<{ migrations: Migration[]; orders: ListResource<unknown> }> {
  const dir = join(process.cwd(), '.work', `bench-shop-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src/slices'), { recursive: true });
  cpSync(join(process.cwd(), 'docs/examples/shop'), join(dir, 'specs'), { recursive: true });
  const customer = join(dir, 'specs/customer.yaml');
  writeFileSync(
    customer,
    readFileSync(customer, 'utf8').replace('maxLength: 100 }', 'maxLength: 100, sortable: true }'),
  );
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  const result = await plop.getGenerator('entity').runActions({ specFile: join(dir, 'specs') });
  if (result.failures.length) throw new Error(JSON.stringify(result.failures));
  const files = readdirSync(join(dir, 'migrations')).sort();
  const migrations = await Promise.all(
    files.map(
      async (file) =>
        (await import(pathToFileURL(join(dir, 'migrations', file)).href)) as Migration,
    ),
  );
  const dto = (await import(pathToFileURL(join(dir, 'src/slices/orders/order.dto.ts')).href)) as {
    orderResource: ListResource<unknown>;
  };
  return { migrations, orders: dto.orderResource };
}

/** A UUID text from the whole number `n` (table `salt` apart), the same on every database. */
function uuid(d: Dialect, n: string, salt: number): string {
  if (d === 'sqlite') return `printf('%08x-000${salt}-4000-8000-%012x', ${n}, ${n})`;
  if (d === 'mysql') {
    return `CONCAT(LPAD(HEX(${n}), 8, '0'), '-000${salt}-4000-8000-', LPAD(HEX(${n}), 12, '0'))`;
  }
  return `(lpad(to_hex(${n}), 8, '0') || '-000${salt}-4000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;
}

function cat(d: Dialect, ...parts: string[]): string {
  return d === 'mysql' ? `CONCAT(${parts.join(', ')})` : parts.map((p) => `(${p})`).join(' || ');
}

function stamp(d: Dialect): string {
  return d === 'postgres'
    ? `TIMESTAMPTZ '2024-01-01 00:00:00+00' + make_interval(secs => n)`
    : d === 'mysql'
      ? `TIMESTAMPADD(SECOND, n, '2024-01-01 00:00:00')`
      : `1704067200000 + n * 1000`;
}

/** The shop's tables as its migrations make them, holding `orders` orders. */
async function ensureShop(knex: Knex, d: Dialect, migrations: Migration[], orders: number) {
  if (await knex.schema.hasTable('bench_shop_meta')) {
    const meta = await knex('bench_shop_meta').first();
    if (Number(meta?.orders) === orders) return;
  }
  const started = performance.now();
  await knex.schema.dropTableIfExists('bench_shop_meta');
  for (const m of [...migrations].reverse()) await m.down(knex).catch(() => undefined);
  for (const m of migrations) await m.up(knex);
  const customers = Math.max(1, Math.floor(orders / 10));
  const audit = `${stamp(d)}, ${stamp(d)}`;
  const insert = async (table: string, columns: string, select: string, count: number) => {
    if (d !== 'mysql') {
      await knex.raw(
        `INSERT INTO ${table} (${columns}) SELECT ${select} FROM ${numbers(d, count)}`,
      );
      return;
    }
    // MySQL/MariaDB: in chunks of 1,000,000 rows, each a transaction of its own, with foreign
    // key and unique checks off as a dump's load has them (the rows are consistent by making):
    // row by row against the indexes the migrations made first, 10,000,000 orders took an hour.
    for (let offset = 0; offset < count; offset += CHUNK) {
      const rows = `(SELECT n + ${offset} AS n FROM ${numbers(d, Math.min(CHUNK, count - offset))}) c`;
      await knex.transaction(async (trx) => {
        await trx.raw('SET SESSION foreign_key_checks = 0, unique_checks = 0');
        try {
          await trx.raw(`INSERT INTO ${table} (${columns}) SELECT ${select} FROM ${rows}`);
        } finally {
          await trx.raw('SET SESSION foreign_key_checks = 1, unique_checks = 1');
        }
      });
    }
  };
  // Names spread over the alphabet (a multiplicative hash), so a prefix picks customers at random.
  await insert(
    'customers',
    'id, email, name, created_on, updated_on',
    `${uuid(d, 'n', 1)}, ${cat(d, `'c'`, 'n', `'@shop.test'`)}, ${cat(d, `'Customer '`, `(n * 7919) % 1000003`)}, ${audit}`,
    customers,
  );
  await insert(
    'tags',
    'id, name, created_on, updated_on',
    `${uuid(d, 'n', 2)}, ${cat(d, `'tag '`, 'n')}, ${audit}`,
    50,
  );
  await insert(
    'orders',
    'id, customer_id, status, created_on, updated_on',
    `${uuid(d, 'n', 3)}, ${uuid(d, `((n * 31) % ${customers}) + 1`, 1)}, CASE n % 3 WHEN 0 THEN 'draft' WHEN 1 THEN 'placed' ELSE 'shipped' END, ${audit}`,
    orders,
  );
  await insert(
    'order_lines',
    'id, order_id, sku, quantity, unit_price, created_on, updated_on',
    `${uuid(d, 'n', 4)}, ${uuid(d, 'n', 3)}, ${cat(d, `'SKU-'`, 'n % 9973')}, (n % 7) + 1, (n % 100) + 0.5, ${audit}`,
    orders,
  );
  await insert(
    'order_tags',
    'order_id, tag_id',
    `${uuid(d, 'n', 3)}, ${uuid(d, '(n % 50) + 1', 2)}`,
    orders,
  );
  await knex.raw(
    d === 'mysql'
      ? 'ANALYZE TABLE customers, tags, orders, order_lines, order_tags'
      : d === 'postgres'
        ? 'VACUUM ANALYZE'
        : 'ANALYZE',
  );
  await knex.schema.createTable('bench_shop_meta', (t) => t.integer('orders'));
  await knex('bench_shop_meta').insert({ orders });
  console.log(
    `  generated the shop's ${orders} orders on ${d} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/**
 * The best hand-written page: the orders joined to their customers (an inner join, every order
 * has one) by the name's prefix in code-point order, the count, then the lines and the tags of
 * the page's orders.
 */
function limit(knex: Knex, d: Dialect) {
  const match = d === 'postgres' ? 'c.name ILIKE ?' : 'c.name LIKE ?';
  const byName =
    d === 'postgres'
      ? 'c.name COLLATE "C" ASC'
      : d === 'mysql'
        ? 'CAST(c.name AS BINARY) ASC'
        : 'c.name ASC';
  const from = 'FROM orders o INNER JOIN customers c ON c.id = o.customer_id';
  return async () => {
    const page = rowsOf(
      await knex.raw(
        `SELECT o.id, o.customer_id, o.status, o.note, o.created_by, o.created_on, o.updated_by, o.updated_on, c.id AS c_id, c.name AS c_name, c.email AS c_email ${from} WHERE ${match} ORDER BY ${byName}, o.id DESC LIMIT 21`,
        [`${PREFIX}%`],
      ),
    );
    const [counted] = rowsOf(
      await knex.raw(`SELECT COUNT(*) AS total ${from} WHERE ${match}`, [`${PREFIX}%`]),
    );
    const ids = page.slice(0, 20).map((r) => r['id'] as string);
    const marks = ids.map(() => '?').join(', ');
    if (ids.length) {
      // Elements in a fixed order, as the list's contract has them.
      await knex.raw(
        `SELECT * FROM order_lines WHERE order_id IN (${marks}) ORDER BY id, sku, quantity, unit_price`,
        ids,
      );
      await knex.raw(
        `SELECT ot.order_id, t.id, t.name FROM order_tags ot INNER JOIN tags t ON t.id = ot.tag_id WHERE ot.order_id IN (${marks}) ORDER BY t.id, t.name`,
        ids,
      );
    }
    return { ids: ids.map(String), total: Number(counted?.['total']) };
  };
}

/** The relations page on the generated shop: engine and limit, median ms of each. */
export async function benchShop(
  knex: Knex,
  d: Dialect,
  orders: number,
  iterations: number,
): Promise<{ engine: number; limit: number }> {
  const { migrations, orders: resource } = await generateShop();
  await ensureShop(knex, d, migrations, orders);
  const query = parseListQuery(resource, {
    filter: `customer.name:StartsWith:${PREFIX}`,
    orderBy: 'customer.name',
    pageSize: '20',
  });
  const engine = async () => {
    const page = await runListQuery(knex, resource, query, { count: 'exact' });
    return {
      ids: page.items.map((i) => String((i as Row)['id'])),
      total: page.totalItemCount,
    };
  };
  const hand = limit(knex, d);
  const [a, b] = [await engine(), await hand()];
  if (JSON.stringify(a) !== JSON.stringify(b) || a.ids.length === 0) {
    throw new Error(`${d} shop relations: the engine and the limit disagree`);
  }
  const times = { engine: [] as number[], limit: [] as number[] };
  for (let i = 0; i < iterations + 2; i++) {
    const order = i % 2 ? (['limit', 'engine'] as const) : (['engine', 'limit'] as const);
    for (const which of order) {
      const started = performance.now();
      await (which === 'engine' ? engine() : hand());
      if (i >= 2) times[which].push(performance.now() - started);
    }
  }
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
  return { engine: median(times.engine), limit: median(times.limit) };
}
