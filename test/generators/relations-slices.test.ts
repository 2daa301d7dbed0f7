// The shop example (docs/examples/shop/) and two entities beside it, generated into a scratch app
// in two runs, on SQLite, PostgreSQL and MySQL: the migrations create the tables in dependency
// order on an empty database with their foreign keys, and the routes keep references whole
// (422 for a row the caller cannot see, 409 / cascade / setNull on delete).
import { expect } from 'chai';
import type { Express } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEachDatabase } from '../support/services.js';
import {
  generateRelationsApp,
  migrateRelationsApp,
  migrationsOf,
  serveRelationsApp,
} from './support/relations-app.js';
import { describeIntegrity, type ShopRows } from './support/relations-integrity.js';
import { describeQueries } from './support/relations-queries.js';

let scratch: Awaited<ReturnType<typeof generateRelationsApp>>;
before(async () => {
  scratch = await generateRelationsApp();
});
after(() => scratch?.remove());

describe('the shop, as generated', () => {
  it('declares each foreign key with its onDelete, an index, and the join table', () => {
    const read = (name: string) =>
      readFileSync(join(scratch.dir, 'migrations', name), 'utf8').replace(/\s+/g, ' ');
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
  let app: Express;
  const rows: ShopRows = { customerId: '', tagIds: [], orderId: '' };
  before(async () => {
    await migrateRelationsApp(scratch.dir, db);
    app = await serveRelationsApp(scratch.dir, db.knex);
  });

  describe('integrity', () => describeIntegrity(() => ({ app, db }), rows));
  describe('DTOs and list queries', () => describeQueries(() => ({ app, db })));

  describe('migrations', () => {
    it('roll back in reverse order', async () => {
      for (const migration of (await migrationsOf(scratch.dir)).reverse()) {
        await migration.down(db.knex);
      }
      for (const table of ['customers', 'tags', 'orders', 'order_tags', 'order_lines']) {
        expect(await db.knex.schema.hasTable(table), table).to.equal(false);
      }
    });
  });
});
