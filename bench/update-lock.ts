// What the row lock costs the update route: `changeEntity` (load FOR UPDATE, change, save, outbox)
// against the same load-change-save without the lock (the update as it was before rows were
// locked), alternating in one run on PostgreSQL, MySQL/MariaDB and SQLite. Each round sends
// BENCH_CONCURRENCY updates at a time to distinct rows (the lock's own cost, no waiting), then the
// same to one hot row (where the lock makes changes wait for each other instead of losing them).
// The last line printed is one JSON object with the median throughput ratios.
//
//   npm run bench:update             BENCH_UPDATES=400 BENCH_ROUNDS=7 BENCH_CONCURRENCY=8
//   BENCH_DATABASES=postgres npm run bench:update
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import knexFactory, { type Knex } from 'knex';
import {
  changeEntity,
  checkId,
  defineEntityTable,
  insertEntity,
  visibleRows,
  type EntityTable,
} from '../runtime/src/crud/index.js'; // from source: the script passes no export condition
import { outboxMigration, recordEvents, updatedEvents } from '../runtime/src/events/index.js';

type Dialect = 'postgres' | 'mysql' | 'sqlite';
const UPDATES = Number(process.env.BENCH_UPDATES ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const DATABASES = (process.env.BENCH_DATABASES ?? 'postgres,mysql,sqlite').split(',') as Dialect[];
const PG_URL = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const DB_NAME = 'slicekit_bench_update';

class Item {
  id = randomUUID();
  name = 'Bench item';
  price = 1;
  ownedBy = '';
  createdBy = '';
  createdOn = new Date();
  updatedBy = '';
  updatedOn = new Date();
}

const items = defineEntityTable({
  table: 'bench_update_items',
  entity: Item,
  fields: { id: 'uuid', name: 'string', price: 'decimal' },
  audited: true,
  owned: true,
  events: [{ operation: 'Updated', fields: ['price'] }],
});

type Row = Record<string, unknown>;

/** The update as it ran before rows were locked: the same steps, a plain SELECT first. */
async function unlockedChange(
  knex: Knex,
  table: EntityTable<Item>,
  id: string,
  principal: string,
  change: (item: Item) => void,
): Promise<Row> {
  return knex.transaction(async (trx) => {
    const key = checkId(table as EntityTable<unknown>, id);
    const stored = (await visibleRows(trx, table as EntityTable<unknown>, principal)
      .where(table.idColumn, key)
      .first()) as Row;
    const entity = table.fromRow(stored);
    change(entity);
    entity.updatedOn = new Date();
    entity.updatedBy = principal;
    const values = table.toRow(entity);
    delete values[table.idColumn];
    delete values[table.ownerColumn!];
    await visibleRows(trx, table as EntityTable<unknown>, principal)
      .where(table.idColumn, key)
      .update(values);
    const row = (await visibleRows(trx, table as EntityTable<unknown>, principal)
      .where(table.idColumn, key)
      .first()) as Row;
    const events = { entity: 'Item', idField: 'id', declarations: table.events };
    await recordEvents(
      trx,
      updatedEvents(
        events,
        table.fromRow(stored) as unknown as Row,
        table.fromRow(row) as unknown as Row,
      ),
    );
    return row;
  });
}

async function connect(dialect: Dialect): Promise<{ knex: Knex; done(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-update-'));
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(dir, 'bench.sqlite') },
      useNullAsDefault: true,
    });
    return {
      knex,
      async done() {
        await knex.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const base = dialect === 'postgres' ? PG_URL : MYSQL_URL;
  const admin = knexFactory({ client: dialect === 'postgres' ? 'pg' : 'mysql2', connection: base });
  const quoted = dialect === 'postgres' ? `"${DB_NAME}"` : `\`${DB_NAME}\``;
  await admin.raw(`drop database if exists ${quoted}`);
  await admin.raw(`create database ${quoted}`);
  const url = new URL(base);
  url.pathname = `/${DB_NAME}`;
  const knex = knexFactory({
    client: dialect === 'postgres' ? 'pg' : 'mysql2',
    connection: url.toString(),
    pool: { min: 0, max: CONCURRENCY + 2 },
  });
  return {
    knex,
    async done() {
      await knex.destroy();
      await admin.raw(`drop database if exists ${quoted}`);
      await admin.destroy();
    },
  };
}

async function prepare(knex: Knex): Promise<string[]> {
  await knex.schema.createTable('bench_update_items', (t) => {
    t.uuid('id').primary();
    t.string('name', 150).notNullable();
    t.decimal('price', 12, 2).notNullable();
    t.string('owned_by', 255).notNullable().defaultTo('');
    t.string('created_by', 255).notNullable().defaultTo('');
    t.datetime('created_on', { precision: 3 }).notNullable();
    t.string('updated_by', 255).notNullable().defaultTo('');
    t.datetime('updated_on', { precision: 3 }).notNullable();
    t.index(['owned_by']);
  });
  await outboxMigration().up(knex);
  const ids: string[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const item = new Item();
    await insertEntity(knex, items, item, 'bench');
    ids.push(item.id);
  }
  return ids;
}

type Update = (id: string, price: number) => Promise<unknown>;

/** Updates per second: UPDATES changes, CONCURRENCY at a time, on the rows `rowOf` picks. */
async function throughput(update: Update, rowOf: (i: number) => string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < UPDATES) {
        const i = next++;
        await update(rowOf(i), (i % 1000) + 1);
      }
    }),
  );
  return UPDATES / ((performance.now() - started) / 1000);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const results: Record<string, number> = {};
for (const dialect of DATABASES) {
  const { knex, done } = await connect(dialect);
  try {
    const ids = await prepare(knex);
    const locked: Update = (id, price) =>
      changeEntity(knex, items, id, 'bench', (item) => {
        item.price = price;
      });
    const unlocked: Update = (id, price) =>
      unlockedChange(knex, items, id, 'bench', (item) => {
        item.price = price;
      });
    const spread = (i: number) => ids[i % ids.length]!;
    const hot = () => ids[0]!;
    await throughput(locked, spread); // warm-up: connections, JIT
    await throughput(unlocked, spread);
    const ratios = { spread: [] as number[], hot: [] as number[] };
    const rates = { locked: [] as number[], unlocked: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so drift in the machine's load falls on both alike.
      const order: [Update, Update] = round % 2 ? [unlocked, locked] : [locked, unlocked];
      const spreadRates = [];
      for (const update of order) spreadRates.push(await throughput(update, spread));
      const [lockedSpread, unlockedSpread] =
        round % 2 ? [spreadRates[1]!, spreadRates[0]!] : [spreadRates[0]!, spreadRates[1]!];
      ratios.spread.push(lockedSpread / unlockedSpread);
      rates.locked.push(lockedSpread);
      rates.unlocked.push(unlockedSpread);
      const lockedHot = await throughput(locked, hot);
      const unlockedHot = await throughput(unlocked, hot).catch(() => Number.NaN);
      ratios.hot.push(lockedHot / unlockedHot);
    }
    const spreadRatio = median(ratios.spread);
    const hotRatio = median(ratios.hot.filter((r) => !Number.isNaN(r)));
    console.log(
      `${dialect}: distinct rows ${median(rates.locked).toFixed(0)}/s locked vs ` +
        `${median(rates.unlocked).toFixed(0)}/s unlocked, ratio ${spreadRatio.toFixed(3)}; ` +
        `one hot row ratio ${hotRatio.toFixed(3)} (the unlocked one loses updates there)`,
    );
    results[`${dialect}_update_locked_vs_unlocked`] = Number(spreadRatio.toFixed(3));
    results[`${dialect}_hot_row_locked_vs_unlocked`] = Number(hotRatio.toFixed(3));
  } finally {
    await done();
  }
}
console.log(JSON.stringify(results));
