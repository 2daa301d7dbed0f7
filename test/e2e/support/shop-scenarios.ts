// The shop example's scenarios over HTTP, against a running server (the shop demo, or an app
// generated from docs/examples/shop/ or docs/examples/shop-secure/): the DTOs the issue describes,
// references kept whole, relations queried by dotted paths, the nested routes, the Place action.
// The secure shop is called as an admin of one tenant (`headers`), and its DTOs show soft deletes.
import { expect } from 'chai';

type Json = Record<string, unknown>;

/** How the shop is called: the headers every request carries, and whether rows soft-delete. */
export interface ShopCaller {
  headers?: () => Record<string, string>;
  softDelete?: boolean;
}

export function describeShopScenarios(baseUrl: () => string, caller: ShopCaller = {}): void {
  const call = async (method: string, path: string, body?: object) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: {
        ...caller.headers?.(),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };
  const ids: Record<string, string> = {};
  const stamp = Date.now().toString(36);

  describe('the shop', () => {
    it('creates customers, tags, an order with tags and its lines', async () => {
      const customer = await call('POST', '/v1/customers', {
        email: `ana-${stamp}@example.com`,
        name: `Ana ${stamp}`,
      });
      expect(customer.status, JSON.stringify(customer.body)).to.equal(201);
      ids.customer = customer.body.id as string;
      const tag = await call('POST', '/v1/tags', { name: `gift-${stamp}` });
      expect(tag.status).to.equal(201);
      ids.tag = tag.body.id as string;
      const order = await call('POST', '/v1/orders', {
        customerId: ids.customer,
        note: 'Wrap it',
        tagIds: [ids.tag],
      });
      expect(order.status, JSON.stringify(order.body)).to.equal(201);
      ids.order = order.body.id as string;
      const line = await call('POST', '/v1/order-lines', {
        orderId: ids.order,
        sku: `AB-${stamp}`,
        quantity: 2,
        unitPrice: 9.5,
      });
      expect(line.status, JSON.stringify(line.body)).to.equal(201);
      ids.line = line.body.id as string;
    });

    it('answers OrderDto with customerId, customer, status, note, lines and tags', async () => {
      const { status, body } = await call('GET', `/v1/orders/${ids.order}`);
      expect(status).to.equal(200);
      expect(Object.keys(body).sort()).to.deep.equal(
        [
          'id',
          'customerId',
          'customer',
          'status',
          'note',
          'lines',
          'tags',
          'createdBy',
          'createdOn',
          'updatedBy',
          'updatedOn',
          ...(caller.softDelete ? ['deletedOn', 'deletedBy'] : []),
        ].sort(),
      );
      expect(body).to.deep.include({
        customerId: ids.customer,
        customer: { id: ids.customer, name: `Ana ${stamp}`, email: `ana-${stamp}@example.com` },
        status: 'draft',
        note: 'Wrap it',
        lines: [{ id: ids.line, sku: `AB-${stamp}`, quantity: 2, unitPrice: 9.5 }],
        tags: [{ id: ids.tag, name: `gift-${stamp}` }],
      });
    });

    it('refuses a reference to no row (422) and keeps a customer that has orders (409)', async () => {
      const missing = await call('POST', '/v1/orders', {
        customerId: '00000000-0000-4000-8000-000000000000',
      });
      expect(missing.status).to.equal(422);
      expect(missing.body).to.include({ code: 'crud.invalid_reference' });
      const kept = await call('DELETE', `/v1/customers/${ids.customer}`);
      expect(kept.status).to.equal(409);
      expect(kept.body).to.include({ code: 'crud.still_referenced' });
    });

    it('queries orders by their customer, tags and lines, and under their parents', async () => {
      const q = (query: string) => call('GET', `/v1/orders?${query}`);
      const byCustomer = await q(
        `filter=customer.name:StartsWith:Ana ${stamp}&orderBy=customer.name`,
      );
      expect((byCustomer.body.items as Json[]).map((o) => o.id)).to.deep.equal([ids.order]);
      const byTag = await q(`filter=tags.name:Equal:gift-${stamp}`);
      expect(byTag.body.totalItemCount).to.equal(1);
      const byLine = await q(`filter=lines.sku:Contains:${stamp}`);
      expect(byLine.body.totalItemCount).to.equal(1);
      const searched = await q(`search=ana-${stamp}`);
      expect(searched.body.totalItemCount).to.equal(1);
      const orders = await call('GET', `/v1/customers/${ids.customer}/orders`);
      expect((orders.body.items as Json[]).map((o) => o.id)).to.deep.equal([ids.order]);
      const lines = await call('GET', `/v1/orders/${ids.order}/lines`);
      expect((lines.body.items as Json[]).map((l) => l.id)).to.deep.equal([ids.line]);
    });

    it('places a draft order once: placing it again is 409 crud.rule_violation; then deletes it with its lines', async () => {
      const placed = await call('POST', `/v1/orders/${ids.order}/place`);
      expect(placed.status).to.equal(200);
      expect(placed.body.status).to.equal('placed');
      const again = await call('POST', `/v1/orders/${ids.order}/place`);
      expect(again.status).to.equal(409);
      expect(again.body).to.include({
        code: 'crud.rule_violation',
        rule: 'order.place.status',
        detail: 'Place needs status draft; it is placed',
      });
      expect((await call('DELETE', `/v1/orders/${ids.order}`)).status).to.equal(204);
      expect((await call('GET', `/v1/order-lines/${ids.line}`)).status).to.equal(404);
      expect((await call('DELETE', `/v1/customers/${ids.customer}`)).status).to.equal(204);
    });
  });
}
