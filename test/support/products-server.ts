// One app process for multi-process tests: a Product table with declared events behind the
// runtime's CRUD pieces (create and list), an event bus delivering the outbox, and the problem
// answers of a generated app (503 for an unavailable database, 500 otherwise). Prints
// `PORT <n>` once listening.
//   node --import tsx --conditions=slicekit-source test/support/products-server.ts <dialect> <url>
import express from 'express';
import knexFactory, { type Knex } from 'knex';
import { crudRoute, defineEntityTable, insertEntity } from '@slicekit/runtime/crud';
import { answerDatabaseUnavailable, boundConnection } from '@slicekit/runtime/database';
import { EventBus } from '@slicekit/runtime/events';

export class Product {
  id = crypto.randomUUID();
  isDiscontinued = false;
  ownedBy = '';
  createdBy = '';
  createdOn = new Date();
  updatedBy = '';
  updatedOn = new Date();

  constructor(
    public name: string,
    public price: number,
  ) {}
}

export const productTable = defineEntityTable({
  table: 'products',
  entity: Product,
  fields: { id: 'uuid', name: 'string', price: 'decimal', isDiscontinued: 'boolean' },
  audited: true,
  owned: true,
  events: [
    { operation: 'Created', fields: ['id', 'name', 'price'] },
    { operation: 'Updated', fields: ['price'] },
  ],
});

/** The products table as the generated Product slice's migration creates it. */
export async function createProductsTable(knex: Knex): Promise<void> {
  await knex.schema.createTable('products', (table) => {
    table.uuid('id').primary();
    table.string('name', 150).notNullable();
    table.decimal('price', 12, 2).notNullable();
    table.boolean('is_discontinued').notNullable().defaultTo(false);
    table.string('owned_by', 255).notNullable().defaultTo('');
    table.string('created_by', 255).notNullable().defaultTo('');
    table.datetime('created_on', { precision: 3 }).notNullable();
    table.string('updated_by', 255).notNullable().defaultTo('');
    table.datetime('updated_on', { precision: 3 }).notNullable();
    table.index(['created_on']);
    table.index(['owned_by']);
  });
}

function knexFor(dialect: string, url: string): Knex {
  if (dialect === 'sqlite') {
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename: url },
      useNullAsDefault: true,
      pool: { afterCreate: boundConnection('sqlite', { busyTimeoutMs: 5000 }) },
    });
  }
  return knexFactory({
    client: dialect === 'postgres' ? 'pg' : 'mysql2',
    connection: dialect === 'postgres' ? url : { uri: url, supportBigNumbers: true },
    pool: { min: 0, max: 10 },
  });
}

async function main(dialect: string, url: string): Promise<void> {
  const knex = knexFor(dialect, url);
  const bus = new EventBus({ knex, pollIntervalMs: 100 });
  bus.on('ProductCreated', () => undefined);
  await bus.start();

  const app = express();
  app.use(express.json());
  app.post(
    '/products',
    crudRoute(async (req, res) => {
      const { name, price } = req.body as { name: string; price: number };
      res.status(201).json(await insertEntity(knex, productTable, new Product(name, price), ''));
    }),
  );
  app.use(((error, req, res, _next) => {
    if (answerDatabaseUnavailable(error, req, res)) return;
    const { code, errno, message } = error as {
      code?: unknown;
      errno?: unknown;
      message?: unknown;
    };
    res.status(500).json({ code, errno, message: String(message).slice(-200) });
  }) as express.ErrorRequestHandler);
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    void bus
      .stop()
      .then(() => knex.destroy())
      .then(() => process.exit(0));
  });
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  await main(process.argv[2]!, process.argv[3]!);
}
