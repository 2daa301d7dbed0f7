// The shop example (docs/examples/shop/), generated into a scratch app in one run, on SQLite,
// PostgreSQL and MySQL: its migrations create the tables in dependency order on an empty
// database, with foreign keys, their onDelete and the join table's composite key.
import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { describeEachDatabase, uniqueName } from '../support/services.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const shop = join(root, 'docs/examples/shop');
// Inside the checkout, so the slices resolve @slicekit/runtime and express from its node_modules.
const scratch = join(root, '.work', uniqueName('relations'));

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

/** The scratch app's migrations, in the order Knex runs them (by file name). */
async function migrations(): Promise<Migration[]> {
  const dir = join(scratch, 'migrations');
  return Promise.all(
    readdirSync(dir)
      .sort()
      .map(async (file) => (await import(pathToFileURL(join(dir, file)).href)) as Migration),
  );
}

before(async () => {
  mkdirSync(scratch, { recursive: true });
  const plop = await nodePlop(undefined, { destBasePath: scratch, force: false });
  registerEntityGenerator(plop);
  const result = await plop
    .getGenerator('entity')
    .runActions({ specFile: shop, now: '2024-05-01T09:30:00Z' });
  expect(result.failures).to.deep.equal([]);
});
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('the shop, as generated', () => {
  it('declares each foreign key with its onDelete, an index, and the join table', () => {
    const read = (name: string) =>
      readFileSync(join(scratch, 'migrations', name), 'utf8').replace(/\s+/g, ' ');
    const orders = read('20240501093002_create_orders.ts');
    expect(orders).to.contain("table.uuid('customer_id').notNullable();");
    expect(orders).to.contain("table.index(['customer_id']);");
    expect(orders).to.contain(
      "table.foreign('customer_id').references('id').inTable('customers').onDelete('RESTRICT');",
    );
    expect(orders).to.contain("await knex.schema.createTable('order_tags', (table) => {");
    expect(orders).to.contain("table.primary(['order_id', 'tag_id']);");
    expect(orders).to.contain(
      "table.foreign('tag_id').references('id').inTable('tags').onDelete('CASCADE');",
    );
    const lines = read('20240501093003_create_order_lines.ts');
    expect(lines).to.contain(
      "table.foreign('order_id').references('id').inTable('orders').onDelete('CASCADE');",
    );
  });
});

describeEachDatabase('the shop', (db) => {
  before(async () => {
    // SQLite enforces foreign keys only when asked, per connection (a generated app's knexfile does).
    if (db.dialect === 'sqlite') await db.knex.raw('PRAGMA foreign_keys = ON');
    for (const migration of await migrations()) await migration.up(db.knex);
  });

  it('migrates an empty database in order, and the foreign keys hold', async () => {
    const customer = { id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', email: 'ana@example.com' };
    await db.knex('customers').insert({
      ...customer,
      name: 'Ana',
      created_by: '',
      created_on: new Date(),
      updated_by: '',
      updated_on: new Date(),
    });
    const order = (id: string, customerId: string) => ({
      id,
      customer_id: customerId,
      status: 'draft',
      created_by: '',
      created_on: new Date(),
      updated_by: '',
      updated_on: new Date(),
    });
    const orderId = '3f2504e0-4f89-41d3-9a0c-0305e82c3302';
    await db.knex('orders').insert(order(orderId, customer.id));
    const unknown = '3f2504e0-4f89-41d3-9a0c-0305e82c3399';
    const refused = await db
      .knex('orders')
      .insert(order('3f2504e0-4f89-41d3-9a0c-0305e82c3303', unknown))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused, 'an order of an unknown customer').to.be.instanceOf(Error);
    const tag = { id: '3f2504e0-4f89-41d3-9a0c-0305e82c3304', name: 'gift' };
    await db.knex('tags').insert({
      ...tag,
      created_by: '',
      created_on: new Date(),
      updated_by: '',
      updated_on: new Date(),
    });
    await db.knex('order_tags').insert({ order_id: orderId, tag_id: tag.id });
    const twice = await db
      .knex('order_tags')
      .insert({ order_id: orderId, tag_id: tag.id })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(twice, 'a pair twice').to.be.instanceOf(Error);
    // Restrict: the customer's order keeps it; a cascade takes the order's tags with it.
    const restricted = await db
      .knex('customers')
      .where('id', customer.id)
      .delete()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(restricted, 'a customer with orders').to.be.instanceOf(Error);
    await db.knex('orders').where('id', orderId).delete();
    expect(await db.knex('order_tags').where('order_id', orderId)).to.deep.equal([]);
  });

  it('rolls back in reverse order', async () => {
    for (const migration of (await migrations()).reverse()) await migration.down(db.knex);
    for (const table of ['customers', 'tags', 'orders', 'order_tags', 'order_lines']) {
      expect(await db.knex.schema.hasTable(table), table).to.equal(false);
    }
  });
});
