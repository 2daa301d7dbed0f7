// The floor of bench/http.ts: the Product API written by hand on Express 5 and Knex, issuing the
// same SQL statements per request as the generated routes (the caller's rows only; the write and
// its outbox event in one transaction, the write returning the row as stored, or the row read
// back on MySQL), and nothing else: no validation library, no request log, no delivery of the
// events it records. What the generated app costs beyond this is what its conveniences and
// guarantees cost.
//
//   DATABASE_URL=postgres://... PORT=3000 node --import tsx bench/http-floor/server.ts
import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import knexFactory, { type Knex } from 'knex';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/http_bench_floor';
const mysql = url.startsWith('mysql:');
const knex = knexFactory(
  mysql
    ? {
        client: 'mysql2',
        connection: { uri: url, supportBigNumbers: true, charset: 'utf8mb4', timezone: 'Z' },
        pool: { min: 0, max: 10 },
      }
    : { client: 'pg', connection: { connectionString: url }, pool: { min: 0, max: 10 } },
);

/** Anonymous callers own the rows stamped with the empty owner, as in the generated app. */
const OWNER = '';
const table = 'products';

interface Row {
  id: string;
  name: string;
  price: string | number;
  is_discontinued: boolean | number;
  owned_by: string;
  created_by: string;
  created_on: Date;
  updated_by: string;
  updated_on: Date;
}

const dto = (row: Row) => ({
  id: row.id,
  name: row.name,
  price: Number(row.price),
  isDiscontinued: Boolean(row.is_discontinued),
  createdBy: row.created_by,
  createdOn: row.created_on,
  updatedBy: row.updated_by,
  updatedOn: row.updated_on,
});

// MySQL's usual collations take `ALICE` or `alice ` for `alice`: owners compare byte for byte.
const own = (db: Knex | Knex.Transaction) => {
  const rows = db(table).where(`${table}.owned_by`, OWNER);
  return mysql ? rows.whereRaw(`binary \`${table}\`.\`owned_by\` = binary ?`, [OWNER]) : rows;
};
const byId = (db: Knex | Knex.Transaction, id: string) => own(db).where('id', id).first();

function outbox(trx: Knex.Transaction, [name, id, payload]: [string, string, object]) {
  const now = Date.now();
  // Leased, with its id read back, as the generated app records an event its own bus delivers.
  const row = {
    attempts: 1,
    available_at: now + 60_000,
    claim_token: leaseToken,
    entity: 'Product',
    entity_id: id,
    event_id: randomUUID(),
    name,
    occurred_at: now,
    payload: JSON.stringify(payload),
    status: 'pending',
    traceparent: null,
  };
  return mysql
    ? trx('slicekit_outbox').insert(row)
    : trx('slicekit_outbox').insert(row, ['id', 'event_id']);
}
const leaseToken = randomUUID();

const validPrice = (price: unknown): price is number => typeof price === 'number' && price >= 0.01;

/** The row a write stored: returned by the write itself, or read back on MySQL (no RETURNING). */
async function stored(trx: Knex.Transaction, id: string, write: Knex.QueryBuilder): Promise<Row> {
  if (!mysql) return ((await write.returning('*')) as Row[])[0]!;
  await write;
  return (await byId(trx, id)) as Row;
}

/** Reads the row for update, applies `change`, writes every column, answers the row as stored, records `event`. */
async function update(
  res: Response,
  id: string,
  change: (row: Row) => Partial<Row>,
  event?: (before: Row, after: Row) => [string, string, object],
) {
  const after = await knex.transaction(async (trx) => {
    const row = (await byId(trx, id).forUpdate()) as Row | undefined;
    if (!row) return undefined;
    const { id: _id, owned_by: _owner, ...columns } = { ...row, ...change(row) };
    columns.updated_on = new Date();
    columns.is_discontinued = Boolean(columns.is_discontinued);
    const written = await stored(trx, id, own(trx).where('id', id).update(columns));
    if (event) await outbox(trx, event(row, written));
    return written;
  });
  if (!after) return void res.status(404).end();
  res.json(dto(after));
}

const app = express();
app.use(express.json());
const router = express.Router();

router.get('/products', async (req: Request, res: Response) => {
  const pageSize = 20;
  const minimum = Number(req.query.minPrice ?? 0);
  const columns = ['id', 'name', 'price', 'is_discontinued', 'created_by', 'created_on']
    .concat(['updated_by', 'updated_on'])
    .map((column) => `${table}.${column}`);
  const filtered = () => own(knex).where(`${table}.price`, '>', minimum);
  const [rows, [counted]] = await Promise.all([
    filtered()
      .select(columns)
      .orderBy(`${table}.price`, 'DESC')
      .orderBy(`${table}.id`, 'DESC')
      .limit(pageSize),
    filtered().count({ total: '*' }),
  ]);
  const totalItemCount = Number(counted?.total);
  res.json({
    items: (rows as Row[]).map(dto),
    pageCount: Math.ceil(totalItemCount / pageSize),
    pageNumber: 1,
    pageSize,
    totalItemCount,
    hasNextPage: totalItemCount > pageSize,
    hasPreviousPage: false,
  });
});

router.get('/products/:id', async (req: Request<{ id: string }>, res: Response) => {
  const row = (await byId(knex, req.params.id)) as Row | undefined;
  if (!row) return void res.status(404).end();
  res.json(dto(row));
});

router.post('/products', async (req: Request, res: Response) => {
  const { name, price } = (req.body ?? {}) as { name?: unknown; price?: unknown };
  if (typeof name !== 'string' || name.length > 150 || !validPrice(price)) {
    return void res.status(400).end();
  }
  const id = randomUUID();
  const now = new Date();
  const row = await knex.transaction(async (trx) => {
    const insert = trx(table).insert({
      created_by: OWNER,
      created_on: now,
      id,
      is_discontinued: false,
      name,
      owned_by: OWNER,
      price,
      updated_by: OWNER,
      updated_on: now,
    });
    const written = await stored(trx, id, insert);
    await outbox(trx, ['ProductCreated', id, { id, name, price: Number(written.price) }]);
    return written;
  });
  res.status(201).location(`${req.baseUrl}/products/${id}`).json(dto(row));
});

router.put('/products/:id', async (req: Request<{ id: string }>, res: Response) => {
  const { price } = (req.body ?? {}) as { price?: unknown };
  if (!validPrice(price)) return void res.status(400).end();
  const id = req.params.id;
  await update(
    res,
    id,
    () => ({ price }),
    (before) => [
      'ProductPriceUpdated',
      id,
      { id, price, previous: { price: Number(before.price) } },
    ],
  );
});

router.post('/products/:id/approval', async (req: Request<{ id: string }>, res: Response) => {
  const { byUser } = (req.body ?? {}) as { byUser?: unknown };
  if (typeof byUser !== 'string') return void res.status(400).end();
  await update(res, req.params.id, () => ({ updated_by: byUser }));
});

router.delete('/products/:id', async (req: Request<{ id: string }>, res: Response) => {
  await own(knex).where('id', req.params.id).delete();
  res.status(204).end();
});

app.use('/v1', router);
app.get('/health', (_req, res) => void res.json({ status: 'up' }));
const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  void knex.destroy().then(() => process.exit(0));
});
