// The secure shop's scenarios over HTTP (docs/examples/shop-secure/, docs/access.md#the-secure-shop),
// against a running server verifying tokens signed with `secret`: tenants kept apart (look-alike
// tenant ids see nothing), a clerk's orders to themselves and an admin's view of the whole tenant,
// the roles of delete and restore, soft delete with its lines and restore, PATCH with If-Match.
import { expect } from 'chai';
import { mintToken, type DemoCaller } from '../../../scripts/demo-token.js';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: Json;
  headers: Headers;
}

export function describeSecureShopScenarios(baseUrl: () => string, secret: () => string): void {
  const token = (caller: DemoCaller) => mintToken(secret(), caller, {});
  const clerk = (user: string, tenant = 'ACME') => token({ user, roles: ['clerk'], tenant });
  const admin = () => token({ user: 'ada', roles: ['admin'], tenant: 'ACME' });
  const call = async (
    as: string | undefined,
    method: string,
    path: string,
    body?: object,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: {
        ...(as ? { authorization: `Bearer ${as}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : {}) as Json,
      headers: res.headers,
    };
  };
  const ids = (answer: Answer) => (answer.body.items as Json[]).map((row) => row.id);
  const stamp = Date.now().toString(36);
  const made: Record<string, string> = {};

  describe('the secure shop', () => {
    it('lets a clerk of ACME create a customer, an order and its line; anonymous callers get 401', async () => {
      const carl = clerk('carl');
      expect((await call(undefined, 'GET', '/v1/customers')).status).to.equal(401);
      const customer = await call(carl, 'POST', '/v1/customers', {
        email: `sec-${stamp}@example.com`,
        name: `Sec ${stamp}`,
      });
      expect(customer.status, JSON.stringify(customer.body)).to.equal(201);
      made.customer = customer.body.id as string;
      const order = await call(carl, 'POST', '/v1/orders', { customerId: made.customer });
      expect(order.status, JSON.stringify(order.body)).to.equal(201);
      made.order = order.body.id as string;
      const line = await call(carl, 'POST', '/v1/order-lines', {
        orderId: made.order,
        sku: `SEC-${stamp}`,
        quantity: 1,
        unitPrice: 3,
      });
      expect(line.status, JSON.stringify(line.body)).to.equal(201);
      made.line = line.body.id as string;
      const other = await call(clerk('dora'), 'POST', '/v1/orders', { customerId: made.customer });
      expect(other.status).to.equal(201);
      made.otherOrder = other.body.id as string;
    });

    it('shows none of it to a clerk of a look-alike tenant: 404 by id, empty lists, 422 naming it', async () => {
      for (const tenant of ['acme', 'acme ', 'acmé']) {
        const outsider = clerk('carl', tenant);
        for (const path of [`/v1/customers/${made.customer}`, `/v1/orders/${made.order}`]) {
          expect((await call(outsider, 'GET', path)).status, `${tenant}: ${path}`).to.equal(404);
        }
        const customers = await call(outsider, 'GET', `/v1/customers?search=sec-${stamp}`);
        expect(customers.body.totalItemCount, tenant).to.equal(0);
        const orders = await call(outsider, 'GET', '/v1/orders');
        expect(orders.body.totalItemCount, tenant).to.equal(0);
        const naming = await call(outsider, 'POST', '/v1/orders', { customerId: made.customer });
        expect(naming.status, tenant).to.equal(422);
        expect(naming.body).to.include({ code: 'crud.invalid_reference' });
      }
    });

    it("lists a clerk's own orders only, and every order of the tenant to an admin", async () => {
      const mine = await call(clerk('carl'), 'GET', '/v1/orders?pageSize=100');
      expect(ids(mine)).to.deep.equal([made.order]);
      const dora = await call(clerk('dora'), 'GET', `/v1/orders/${made.order}`);
      expect(dora.status).to.equal(404);
      const all = await call(admin(), 'GET', `/v1/orders?filter=customerId:Equal:${made.customer}`);
      expect(ids(all)).to.have.members([made.order, made.otherOrder]);
    });

    it('patches a customer with a merge patch and If-Match: 200, then 412 for the stale tag', async () => {
      const carl = clerk('carl');
      const read = await call(carl, 'GET', `/v1/customers/${made.customer}`);
      const etag = read.headers.get('etag') ?? '';
      const patch = { 'content-type': 'application/merge-patch+json', 'if-match': etag };
      const body = JSON.stringify({ name: `Patched ${stamp}` });
      const res = await fetch(`${baseUrl()}/v1/customers/${made.customer}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${carl}`, ...patch },
        body,
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.include({
        name: `Patched ${stamp}`,
        email: `sec-${stamp}@example.com`,
      });
      const stale = await fetch(`${baseUrl()}/v1/customers/${made.customer}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${carl}`, ...patch },
        body,
      });
      expect(stale.status).to.equal(412);
    });

    it('refuses a delete to a clerk (403 auth.forbidden); an admin deletes softly and restores', async () => {
      const refused = await call(clerk('carl'), 'DELETE', `/v1/customers/${made.customer}`);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ code: 'auth.forbidden', operation: 'delete' });
      const ada = admin();
      expect((await call(ada, 'DELETE', `/v1/orders/${made.order}`)).status).to.equal(204);
      expect((await call(ada, 'GET', `/v1/orders/${made.order}`)).status).to.equal(404);
      expect((await call(ada, 'GET', `/v1/order-lines/${made.line}`)).status).to.equal(404);
      const deleted = await call(
        ada,
        'GET',
        `/v1/orders?deleted=only&filter=id:Equal:${made.order}`,
      );
      expect(ids(deleted)).to.deep.equal([made.order]);
      expect((await call(clerk('carl'), 'GET', '/v1/orders?deleted=only')).status).to.equal(403);
      const restored = await call(ada, 'POST', `/v1/orders/${made.order}/restore`);
      expect(restored.status).to.equal(200);
      expect(restored.body).to.include({ id: made.order, deletedOn: null });
      expect((await call(ada, 'GET', `/v1/order-lines/${made.line}`)).status).to.equal(200);
      // The customer goes once no live order names it, and comes back with its restore.
      for (const order of [made.order, made.otherOrder]) {
        expect((await call(ada, 'DELETE', `/v1/orders/${order}`)).status).to.equal(204);
      }
      expect((await call(ada, 'DELETE', `/v1/customers/${made.customer}`)).status).to.equal(204);
      const back = await call(ada, 'POST', `/v1/customers/${made.customer}/restore`);
      expect(back.status).to.equal(200);
      expect((await call(clerk('carl'), 'GET', `/v1/customers/${made.customer}`)).status).to.equal(
        200,
      );
    });
  });
}
