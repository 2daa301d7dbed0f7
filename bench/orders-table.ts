// The create route's work in the idempotency benchmarks: an order inserted through Knex into an
// in-memory SQLite table and the stored row returned, as a generated create route does (CPU work
// only, no disk wait).
import knex from 'knex';

/** The orders table: `insert` adds one order and answers its row; `close` frees the database. */
export interface OrdersTable {
  insert(body: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

export async function ordersTable(): Promise<OrdersTable> {
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
  });
  await db.schema.createTable('orders', (table) => {
    table.increments('id');
    table.string('sku', 64).notNullable();
    table.integer('quantity').notNullable();
    table.string('note', 200);
    table.string('created_at', 32).notNullable();
  });
  return {
    async insert(body) {
      const { sku, quantity, note } = body as { sku: string; quantity: number; note: string };
      const [order] = await db('orders')
        .insert({ sku, quantity, note, created_at: new Date().toISOString() })
        .returning(['id', 'sku', 'quantity', 'note', 'created_at']);
      return order as unknown;
    },
    close: () => db.destroy(),
  };
}
