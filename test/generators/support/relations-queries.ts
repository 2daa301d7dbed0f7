// Scenarios of the relations tests: DTOs with nested members and collections, list queries over
// them (dotted paths, any-match, search to depth 2) with a bounded number of queries per page, and
// an owned entity's rows never shown to a caller who does not own them.
import { expect } from 'chai';
import { client, type RelationsContext } from './relations-app.js';

type Order = {
  id: string;
  customerId: string;
  customer: { id: string; name: string; email: string } | null;
  tags: { id: string; name: string }[];
  lines: { id: string; sku: string; quantity: number; unitPrice: number }[];
};

export function describeQueries(context: () => RelationsContext): void {
  const api = (user?: string) => client(context(), user);
  const ids: Record<string, string> = {};

  before(async () => {
    for (const [key, name, email] of [
      ['alma', 'Alma Quist', 'alma@shop.test'],
      ['bruno', 'Bruno Diaz', 'bruno@shop.test'],
      ['carla', 'Carla Mendes', 'carla@shop.test'],
    ] as const) {
      ids[key] = (await api().post('/v1/customers', { email, name }).expect(201)).body.id;
    }
    for (const name of ['gift', 'wholesale']) {
      ids[name] = (await api().post('/v1/tags', { name }).expect(201)).body.id;
    }
    const order = async (key: string, customer: string, tags: string[], skus: string[]) => {
      const body = { customerId: ids[customer], note: `q-${key}`, tagIds: tags.map((t) => ids[t]) };
      ids[key] = (await api().post('/v1/orders', body).expect(201)).body.id;
      for (const sku of skus) {
        await api()
          .post('/v1/order-lines', { orderId: ids[key], sku, quantity: 1, unitPrice: 4.5 })
          .expect(201);
      }
    };
    await order('o1', 'alma', ['gift'], ['AB-100', 'ZZ-1']);
    await order('o2', 'bruno', ['wholesale'], ['CD-200']);
    await order('o3', 'carla', ['gift', 'wholesale'], []);
  });

  /** The order ids of a list query over this scenario's orders (their notes start with q-). */
  const listed = async (query: Record<string, string | string[]>) => {
    const filters = ([] as string[]).concat(query.filter ?? []);
    const res = await api()
      .get('/v1/orders')
      .query({ ...query, filter: ['note:StartsWith:q-', ...filters] });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return (res.body.items as Order[]).map((o) => Object.keys(ids).find((k) => ids[k] === o.id));
  };

  it('answers the DTO with the id, the nested customer, its lines and its tags', async () => {
    const res = await api().get(`/v1/orders/${ids.o1}`);
    expect(res.status).to.equal(200);
    const order = res.body as Order;
    expect(order.customerId).to.equal(ids.alma);
    expect(order.customer).to.deep.equal({
      id: ids.alma,
      name: 'Alma Quist',
      email: 'alma@shop.test',
    });
    expect(order.tags).to.deep.equal([{ id: ids.gift, name: 'gift' }]);
    expect(order.lines.map((l) => [l.sku, l.quantity, l.unitPrice]).sort()).to.deep.equal([
      ['AB-100', 1, 4.5],
      ['ZZ-1', 1, 4.5],
    ]);
    const line = await api().get(`/v1/order-lines/${order.lines[0]!.id}`);
    expect(line.body.order).to.deep.equal({ id: ids.o1, status: 'draft' });
  });

  it('filters and orders on a nested member by its dotted path', async () => {
    expect(await listed({ filter: 'customer.name:StartsWith:Al' })).to.deep.equal(['o1']);
    expect(await listed({ orderBy: 'customer.name' })).to.deep.equal(['o1', 'o2', 'o3']);
    expect(await listed({ orderBy: 'Customer.Name', desc: 'true' })).to.deep.equal([
      'o3',
      'o2',
      'o1',
    ]);
  });

  it('filters on collection members with an any-match', async () => {
    expect(
      await listed({ filter: 'tags.name:Equal:gift', orderBy: 'customer.name' }),
    ).to.deep.equal(['o1', 'o3']);
    expect(await listed({ filter: 'lines.sku:Contains:ab' })).to.deep.equal(['o1']);
    // No element matches: NotEqual, NotContains and NotIn on a collection member.
    expect(await listed({ filter: 'tags.name:NotEqual:gift' })).to.deep.equal(['o2']);
    const refused = await api().get('/v1/orders').query({ orderBy: 'tags.name' });
    expect(refused.status).to.equal(400);
    expect(refused.body.detail).to.contain("member of a collection's elements");
  });

  it('searches nested members and collections to depth 2', async () => {
    expect(await listed({ search: 'bruno@shop' })).to.deep.equal(['o2']);
    expect(await listed({ search: 'WHOLESALE', orderBy: 'customer.name' })).to.deep.equal([
      'o2',
      'o3',
    ]);
    expect(await listed({ search: 'zz-1' })).to.deep.equal(['o1']);
  });

  it('reads a page with its customers, lines and tags in 4 queries, whatever its size', async () => {
    const { knex } = context().db;
    const count = async (query: Record<string, unknown>) => {
      const queries: string[] = [];
      const record = (q: { sql: string }) => queries.push(q.sql);
      knex.on('query', record);
      try {
        const res = await api().get('/v1/orders').query(query);
        expect(res.status).to.equal(200);
        return { queries, items: res.body.items.length as number };
      } finally {
        knex.removeListener('query', record);
      }
    };
    // A full page: the page (customers joined), COUNT(*), the lines, the tags; before the count,
    // PostgreSQL and MySQL ask their planner for an estimate (EXPLAIN) and SQLite whether a row
    // follows the first 10,000 (LIMIT 1 OFFSET), exact below 10,000 rows.
    const full = await count({ pageSize: 2, orderBy: 'customer.name' });
    expect(full.items).to.equal(2);
    const estimates = full.queries.filter(
      (sql) => /^explain\b/i.test(sql) || /^select 1 from .* limit \? offset \?$/i.test(sql),
    );
    expect(estimates.length, full.queries.join('\n')).to.be.at.most(1);
    expect(full.queries.length - estimates.length, full.queries.join('\n')).to.equal(4);
    // A page that shows where the list ends needs no count: 3, for 100 rows as for 2.
    const last = await count({ pageSize: 100, orderBy: 'customer.name' });
    expect(last.items).to.be.at.least(3);
    expect(last.queries, last.queries.join('\n')).to.have.length(3);
  });

  it('lists the one-to-many under its parent with the whole list-query contract', async () => {
    const alma = await api().get(`/v1/customers/${ids.alma}/orders`);
    expect(alma.status, JSON.stringify(alma.body)).to.equal(200);
    expect(alma.body.items.map((o: Order) => o.id)).to.deep.equal([ids.o1]);
    expect(alma.body.items[0].customer.name).to.equal('Alma Quist');
    const lines = await api()
      .get(`/v1/orders/${ids.o1}/lines`)
      .query({ filter: 'sku:StartsWith:ab', orderBy: 'sku', pageSize: 1 });
    expect(lines.status).to.equal(200);
    expect(lines.body).to.include({ totalItemCount: 1, pageSize: 1 });
    expect(lines.body.items[0]).to.include({ sku: 'AB-100', orderId: ids.o1 });
    const all = await api().get(`/v1/orders/${ids.o1}/lines`).query({ orderBy: 'sku', desc: true });
    expect(all.body.items.map((l: { sku: string }) => l.sku)).to.deep.equal(['ZZ-1', 'AB-100']);
    expect((await api().get(`/v1/orders/${ids.o3}/lines`)).body.totalItemCount).to.equal(0);
    const bad = await api()
      .get(`/v1/customers/${ids.alma}/orders`)
      .query({ filter: 'nope:Equal:1' });
    expect(bad.status).to.equal(400);
  });

  it('answers 404 under a parent that does not exist, and 400 for a malformed id', async () => {
    const missing = await api().get('/v1/customers/00000000-0000-4000-8000-000000000000/orders');
    expect(missing.status).to.equal(404);
    expect(missing.type).to.equal('application/problem+json');
    expect((await api().get('/v1/orders/not-an-id/lines')).status).to.equal(400);
  });

  it("never shows an owned entity's row to a caller who does not own it", async () => {
    const supplier = await api('alice').post('/v1/suppliers', { name: 'Baltic Haulage' });
    const shipment = await api('alice').post('/v1/shipments', {
      carrier: 'q-ship',
      supplierId: supplier.body.id,
    });
    expect(shipment.status).to.equal(201);
    expect(shipment.body.supplier).to.deep.equal({ id: supplier.body.id, name: 'Baltic Haulage' });
    const path = `/v1/shipments/${shipment.body.id}`;
    expect((await api('bob').get(path)).body).to.include({
      supplierId: supplier.body.id,
      supplier: null,
    });
    const asBob = await api('bob').get('/v1/shipments').query({ filter: 'carrier:Equal:q-ship' });
    expect(asBob.body.items[0].supplier).to.equal(null);
    // Nor its one-to-many: its nested route is a 404, as its own route is.
    const nested = `/v1/suppliers/${supplier.body.id}/shipments`;
    expect((await api('bob').get(nested)).status).to.equal(404);
    expect((await api('alice').get(nested)).body.totalItemCount).to.equal(1);
    for (const query of [{ filter: 'supplier.name:Equal:Baltic Haulage' }, { search: 'Baltic' }]) {
      expect((await api('bob').get('/v1/shipments').query(query)).body.totalItemCount).to.equal(0);
      expect((await api('alice').get('/v1/shipments').query(query)).body.totalItemCount).to.equal(
        1,
      );
    }
  });
}
