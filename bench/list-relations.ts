// The relations scenario of `npm run bench:list`: 1,000,000 orders over 100,000 customers, each
// order with a line and a tag, generated inside each database and kept between runs. One page
// filtered and ordered by customer.name, with the nested customer, the lines and the tags, read
// by the engine and by the hand-written Knex queries returning the same rows, alternating.
//
//   BENCH_RELATION_ORDERS=1000000 (customers: a tenth of it)
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import {
  defineListResource,
  parseListQuery,
  runListQuery,
} from '../runtime/src/list-query/index.js';

type Dialect = 'postgres' | 'mysql' | 'sqlite';
type Row = Record<string, unknown>;

export const ORDERS = Number(process.env.BENCH_RELATION_ORDERS ?? 1_000_000);
const CUSTOMERS = Math.max(1, Math.floor(ORDERS / 10));
const TAGS = 50;

const integer = { type: 'integer' } as const;
const text = { type: 'string' } as const;
const resource = defineListResource({
  table: 'bench_orders',
  dto: {
    type: 'object',
    required: ['id', 'customerId', 'status', 'customer', 'lines', 'tags'],
    properties: {
      id: integer,
      customerId: integer,
      status: text,
      // As a generated OrderDto has it: a required reference to an entity that is not owned.
      customer: {
        type: 'object',
        properties: { id: integer, name: text, email: text },
        required: ['id', 'name', 'email'],
      },
      lines: {
        type: 'array',
        items: { type: 'object', properties: { id: integer, sku: text, quantity: integer } },
      },
      tags: { type: 'array', items: { type: 'object', properties: { id: integer, name: text } } },
    },
  },
  columns: {
    customer: { relation: { table: 'bench_customers', localColumn: 'customer_id' } },
    lines: { collection: { table: 'bench_order_lines', foreignKey: 'order_id' } },
    tags: {
      collection: {
        table: 'bench_tags',
        through: { table: 'bench_order_tags', localKey: 'order_id', foreignKey: 'tag_id' },
      },
    },
  },
});

/** A FROM clause of one column `n`, 1 to `count`, per dialect. */
export function numbers(dialect: Dialect, count: number): string {
  if (dialect === 'postgres') return `generate_series(1::bigint, ${count}) AS s(n)`;
  if (dialect === 'sqlite') {
    return `(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${count}) SELECT n FROM s) s`;
  }
  const width = Math.max(1, Math.ceil(Math.log10(count)));
  const digits = Array.from(
    { length: width },
    (_, i) =>
      `(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d${i}`,
  );
  const n = Array.from({ length: width }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
  return `(SELECT * FROM (SELECT ${n} + 1 AS n FROM ${digits.join(' CROSS JOIN ')}) x WHERE n <= ${count}) s`;
}

const cat = (dialect: Dialect, ...parts: string[]) =>
  dialect === 'mysql' ? `CONCAT(${parts.join(', ')})` : parts.join(' || ');

/** Creates the four tables and their rows, unless an earlier run left them at this size. */
export async function ensureRelationTables(knex: Knex, dialect: Dialect): Promise<void> {
  if (await knex.schema.hasTable('bench_rel_meta')) {
    const meta = await knex('bench_rel_meta').first();
    if (Number(meta?.orders) === ORDERS) return;
  }
  const started = performance.now();
  for (const table of [
    'bench_order_tags',
    'bench_order_lines',
    'bench_orders',
    'bench_tags',
    'bench_customers',
    'bench_rel_meta',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.createTable('bench_customers', (t) => {
    t.integer('id').primary();
    t.string('name', 100).notNullable();
    t.string('email', 200).notNullable();
  });
  await knex.schema.createTable('bench_tags', (t) => {
    t.integer('id').primary();
    t.string('name', 50).notNullable();
  });
  await knex.schema.createTable('bench_orders', (t) => {
    t.integer('id').primary();
    t.integer('customer_id').notNullable().references('id').inTable('bench_customers');
    t.string('status', 20).notNullable();
  });
  await knex.schema.createTable('bench_order_lines', (t) => {
    t.integer('id').primary();
    t.integer('order_id').notNullable().references('id').inTable('bench_orders');
    t.string('sku', 40).notNullable();
    t.integer('quantity').notNullable();
  });
  await knex.schema.createTable('bench_order_tags', (t) => {
    t.integer('order_id').notNullable().references('id').inTable('bench_orders');
    t.integer('tag_id').notNullable().references('id').inTable('bench_tags');
    t.primary(['order_id', 'tag_id']);
  });
  const insert = (table: string, columns: string, select: string, count: number) =>
    knex.raw(`INSERT INTO ${table} (${columns}) SELECT ${select} FROM ${numbers(dialect, count)}`);
  // Names spread over the alphabet (a multiplicative hash), so a prefix picks customers at random.
  await insert(
    'bench_customers',
    'id, name, email',
    `n, ${cat(dialect, `'Customer '`, `((n * 7919) % 1000003)`)}, ${cat(dialect, `'c'`, 'n', `'@shop.test'`)}`,
    CUSTOMERS,
  );
  await insert('bench_tags', 'id, name', `n, ${cat(dialect, `'tag '`, 'n')}`, TAGS);
  await insert(
    'bench_orders',
    'id, customer_id, status',
    `n, ((n * 31) % ${CUSTOMERS}) + 1, CASE n % 3 WHEN 0 THEN 'draft' WHEN 1 THEN 'placed' ELSE 'shipped' END`,
    ORDERS,
  );
  await insert(
    'bench_order_lines',
    'id, order_id, sku, quantity',
    `n, n, ${cat(dialect, `'SKU-'`, '(n % 9973)')}, (n % 7) + 1`,
    ORDERS,
  );
  await insert('bench_order_tags', 'order_id, tag_id', `n, (n % ${TAGS}) + 1`, ORDERS);
  await knex.schema.alterTable('bench_orders', (t) => t.index(['customer_id']));
  await knex.schema.alterTable('bench_order_lines', (t) => t.index(['order_id']));
  if (dialect === 'postgres') await knex.raw('ANALYZE');
  else if (dialect === 'sqlite') await knex.raw('ANALYZE');
  else {
    await knex.raw(
      'ANALYZE TABLE bench_customers, bench_tags, bench_orders, bench_order_lines, bench_order_tags',
    );
  }
  await knex.schema.createTable('bench_rel_meta', (t) => t.integer('orders'));
  await knex('bench_rel_meta').insert({ orders: ORDERS });
  console.log(
    `  generated ${ORDERS} orders on ${dialect} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

const PREFIX = 'Customer 12';
const PAGE_SIZE = 20;

/** The engine's query: the same contract every generated list route serves. */
export function engineQuery(knex: Knex) {
  const query = parseListQuery(resource, {
    filter: `customer.name:StartsWith:${PREFIX}`,
    orderBy: 'customer.name',
    pageSize: String(PAGE_SIZE),
  });
  // Counted exactly, as the hand-written queries count (the default would estimate past 10,000).
  return () => runListQuery(knex, resource, query, { count: 'exact' });
}

/** What a developer writes by hand for the same page: page, count, lines and tags. */
export function handWrittenQuery(knex: Knex, dialect: Dialect) {
  const like =
    dialect === 'postgres'
      ? (qb: Knex.QueryBuilder) => qb.whereRaw('c.name ILIKE ?', [`${PREFIX}%`])
      : (qb: Knex.QueryBuilder) => qb.where('c.name', 'like', `${PREFIX}%`);
  // Code-point order, as the engine's contract has it on every database.
  const byName =
    dialect === 'postgres'
      ? 'c.name COLLATE "C" ASC NULLS FIRST'
      : dialect === 'mysql'
        ? 'CAST(c.name AS BINARY) ASC'
        : 'c.name ASC';
  return async () => {
    // Every order has its customer: an inner join, as one writes it by hand.
    const page = knex('bench_orders as o')
      .join('bench_customers as c', 'c.id', 'o.customer_id')
      .select(
        'o.id',
        'o.customer_id',
        'o.status',
        'c.id as c_id',
        'c.name as c_name',
        'c.email as c_email',
      );
    like(page);
    const rows: Row[] = await page.orderByRaw(`${byName}, o.id DESC`).limit(PAGE_SIZE);
    const count = knex('bench_orders as o').join('bench_customers as c', 'c.id', 'o.customer_id');
    like(count);
    const [{ total }] = (await count.count({ total: '*' })) as [{ total: number | string }];
    const ids = rows.map((r) => r.id as number);
    const lines: Row[] = ids.length
      ? await knex('bench_order_lines').whereIn('order_id', ids).orderBy(['id', 'sku', 'quantity'])
      : [];
    const tags: Row[] = ids.length
      ? await knex('bench_order_tags as ot')
          .join('bench_tags as t', 't.id', 'ot.tag_id')
          .whereIn('ot.order_id', ids)
          .select('ot.order_id', 't.id', 't.name')
          .orderBy(['t.id', 't.name'])
      : [];
    return {
      totalItemCount: Number(total),
      items: rows.map((r) => ({
        id: Number(r.id),
        customerId: Number(r.customer_id),
        status: r.status,
        customer: r.c_id === null ? null : { id: Number(r.c_id), name: r.c_name, email: r.c_email },
        lines: lines
          .filter((l) => Number(l.order_id) === Number(r.id))
          .map((l) => ({ id: Number(l.id), sku: l.sku, quantity: Number(l.quantity) })),
        tags: tags
          .filter((t) => Number(t.order_id) === Number(r.id))
          .map((t) => ({ id: Number(t.id), name: t.name })),
      })),
    };
  };
}
