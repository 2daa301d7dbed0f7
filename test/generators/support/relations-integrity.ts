// Scenarios of the relations tests: requests naming rows (422 when the caller cannot see them),
// deletes of referenced rows (409 under restrict, cascade, setNull), in the same transaction, and
// an order's ETag covering its lines (the generated table declares its DTO).
import { expect } from 'chai';
import { isForeignKeyViolation } from '@slicekit/runtime/crud';
import { client, type RelationsContext } from './relations-app.js';

const unknownId = '00000000-0000-4000-8000-000000000000';

/** What the integrity scenarios create, for the scenarios after them. */
export interface ShopRows {
  customerId: string;
  tagIds: string[];
  orderId: string;
}

export function describeIntegrity(context: () => RelationsContext, rows: ShopRows): void {
  const api = (user?: string) => client(context(), user);

  it('creates an order of an existing customer, with tags: 201 with customerId', async () => {
    const customer = await api().post('/v1/customers', { email: 'ana@example.com', name: 'Ana' });
    expect(customer.status, JSON.stringify(customer.body)).to.equal(201);
    rows.customerId = customer.body.id;
    rows.tagIds = [];
    for (const name of ['express', 'rush']) {
      const tag = await api().post('/v1/tags', { name });
      expect(tag.status).to.equal(201);
      rows.tagIds.push(tag.body.id);
    }
    // An id is stored as every id is, lower-case, whatever case the request used.
    const order = await api().post('/v1/orders', {
      customerId: rows.customerId.toUpperCase(),
      note: 'Leave at the door',
      tagIds: rows.tagIds,
    });
    expect(order.status, JSON.stringify(order.body)).to.equal(201);
    expect(order.body).to.include({ customerId: rows.customerId, status: 'draft' });
    rows.orderId = order.body.id;
    const joined = await context().db.knex('order_tags').where('order_id', rows.orderId);
    expect(joined).to.have.length(2);
  });

  it("tags an order with its lines: a line added since answers 200 to If-None-Match and 412 to the action's If-Match", async () => {
    const order = await api().post('/v1/orders', { customerId: rows.customerId });
    const path = `/v1/orders/${order.body.id}`;
    const read = (await api().get(path).expect(200)).headers.etag as string;
    await api().get(path).set('if-none-match', read).expect(304);
    await api()
      .post('/v1/order-lines', { orderId: order.body.id, sku: 'L-1', quantity: 1, unitPrice: 2 })
      .expect(201);
    const fresh = await api().get(path).set('if-none-match', read).expect(200);
    expect(fresh.body.lines).to.have.length(1);
    await api().post(`${path}/place`).set('if-match', read).expect(412);
    const current = fresh.headers.etag as string;
    await api().post(`${path}/place`).set('if-match', current).expect(200);
    await api().delete(path).expect(204);
  });

  it('answers 422 problem+json naming the field for a reference to no row, storing nothing', async () => {
    const before = await api().get('/v1/orders');
    const res = await api().post('/v1/orders', { customerId: unknownId });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.include({ code: 'crud.invalid_reference' });
    expect(res.body.errors).to.deep.equal([
      {
        field: 'customerId',
        message: `names no Customer you can see: ${unknownId}`,
        keyword: 'reference',
      },
    ]);
    const tags = await api().post('/v1/orders', {
      customerId: rows.customerId,
      tagIds: [rows.tagIds[0], unknownId],
    });
    expect(tags.status).to.equal(422);
    expect(tags.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['tagIds']);
    const after = await api().get('/v1/orders');
    expect(after.body.totalItemCount).to.equal(before.body.totalItemCount);
  });

  it("answers 422 for another caller's row of an owned entity, on create and on change", async () => {
    const supplier = await api('alice').post('/v1/suppliers', { name: 'Nordic Freight' });
    expect(supplier.status).to.equal(201);
    const mine = await api('alice').post('/v1/shipments', {
      carrier: 'DHL',
      supplierId: supplier.body.id,
    });
    expect(mine.status, JSON.stringify(mine.body)).to.equal(201);
    const theirs = await api('bob').post('/v1/shipments', {
      carrier: 'UPS',
      supplierId: supplier.body.id,
    });
    expect(theirs.status).to.equal(422);
    expect(theirs.body.errors[0]).to.include({ field: 'supplierId' });
    const own = await api('bob').post('/v1/shipments', { carrier: 'UPS' });
    expect(own.status).to.equal(201);
    const reassigned = await api('bob').put(`/v1/shipments/${own.body.id}`, {
      supplierId: supplier.body.id,
    });
    expect(reassigned.status).to.equal(422);
    const unchanged = await api('bob').put(`/v1/shipments/${mine.body.id}`, {
      supplierId: supplier.body.id,
    });
    // The shipment is no one's own; its supplier did not change, so it is not checked again.
    expect(unchanged.status, JSON.stringify(unchanged.body)).to.equal(200);
    const byOwner = await api('alice').put(`/v1/shipments/${own.body.id}`, {
      supplierId: supplier.body.id,
    });
    expect(byOwner.status).to.equal(200);
    expect(byOwner.body.supplierId).to.equal(supplier.body.id);
  });

  it('answers 409 problem+json saying by what when a restricted row is deleted, and keeps it', async () => {
    const res = await api().delete(`/v1/customers/${rows.customerId}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.include({ code: 'crud.still_referenced' });
    expect(res.body.referencedBy).to.deep.equal([{ entity: 'Order', field: 'customerId' }]);
    expect(res.body.detail).to.contain('still referenced by Order (customerId)');
    expect((await api().get(`/v1/customers/${rows.customerId}`)).status).to.equal(200);
  });

  it('cascades and sets null as onDelete says, in the delete, and drops the join rows', async () => {
    const { knex } = context().db;
    const order = await api().post('/v1/orders', {
      customerId: rows.customerId,
      tagIds: [rows.tagIds[1]],
    });
    const line = await api().post('/v1/order-lines', {
      orderId: order.body.id,
      sku: 'AB-1',
      quantity: 2,
      unitPrice: 9.5,
    });
    expect(line.status, JSON.stringify(line.body)).to.equal(201);
    const shipment = await api().post('/v1/shipments', {
      carrier: 'DHL',
      orderId: order.body.id,
    });
    expect(shipment.status).to.equal(201);
    expect((await api().delete(`/v1/orders/${order.body.id}`)).status).to.equal(204);
    expect((await api().get(`/v1/order-lines/${line.body.id}`)).status).to.equal(404);
    const kept = await api().get(`/v1/shipments/${shipment.body.id}`);
    expect(kept.body.orderId).to.equal(null);
    expect(await knex('order_tags').where('order_id', order.body.id)).to.deep.equal([]);
    // Deleting a tag takes it off its orders.
    const tag = await api().post('/v1/tags', { name: 'fragile' });
    const tagged = await api().post('/v1/orders', {
      customerId: rows.customerId,
      tagIds: [tag.body.id],
    });
    expect((await api().delete(`/v1/tags/${tag.body.id}`)).status).to.equal(204);
    expect(await knex('order_tags').where('order_id', tagged.body.id)).to.deep.equal([]);
    await api().delete(`/v1/orders/${tagged.body.id}`).expect(204);
  });

  it('recognises the foreign key errors of the database', async () => {
    const { knex } = context().db;
    const error = await knex('order_lines')
      .insert({
        id: '3f2504e0-4f89-41d3-9a0c-0305e82c3309',
        order_id: unknownId,
        sku: 'X',
        quantity: 1,
        unit_price: 1,
        created_by: '',
        created_on: new Date(),
        updated_by: '',
        updated_on: new Date(),
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isForeignKeyViolation(error), String(error)).to.equal(true);
  });
}
