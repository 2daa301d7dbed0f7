// The admin UI of `DEMO=shop npm run demo` (customers, orders, order lines, tags), on SQLite and on
// PostgreSQL, driven in Debian's Chromium as a person uses it: one demo and one browser session
// per database. A customer created after the form's own rules and the API's duplicate check
// refused it, an order whose customer is picked by name and whose tags are chosen, the orders
// filtered by their customer's name, the show page with the order's lines, tags and the link to the
// customer's orders, the Place action from an allowed then a refused state, an edit refused with 412
// because the row changed meanwhile, and deletes after their confirmation. Each step checks the
// page against what the API itself answers.
import { expect } from 'chai';
import { STALE_ROW_MESSAGE } from '@slicekit/runtime/admin';
import { useDatabase, type Dialect } from '../support/services.js';
import { cells, useAdminDemo, waitFor, type AdminDemo } from './support/admin-page.js';

interface Customer {
  id: string;
  name: string;
  email: string;
}
interface Order {
  id: string;
  customerId: string;
  status: string;
  tags: { id: string; name: string }[];
  lines: { sku: string }[];
}
type Page<T> = { items: T[] };

for (const dialect of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`admin UI of DEMO=shop npm run demo on ${dialect} (Chromium)`, function () {
    this.timeout(120_000);
    const db = dialect === 'sqlite' ? undefined : useDatabase(dialect);
    const admin = useAdminDemo(`admin-shop-${dialect}`, () => ({
      DEMO: 'shop',
      ...(db ? { DATABASE_URL: db.url } : {}),
    }));
    describeShopAdmin(admin);
  });
}

function describeShopAdmin(admin: AdminDemo): void {
  const stamp = Date.now().toString(36);
  const name = `Ana ${stamp}`;
  const email = `ana-${stamp}@example.com`;
  const tag = `gift-${stamp}`;
  let customer: Customer;
  let order: Order;
  const page = () => admin.page;
  const goto = (hash: string) => page().goto(`${admin.url}/admin#/${hash}`);
  const list = async <T>(path: string) => (await admin.api<Page<T>>(path)).body.items;

  it('checks the form against the request rules, then the API, then creates the customer', async () => {
    const { body: someone } = await admin.api<Page<Customer>>('/customers?pageSize=1');
    await goto('customers/create');
    // The list's "Sort by email" header matches the label too until the form replaces it.
    await page().getByRole('button', { name: 'Save' }).waitFor();
    await page().getByLabel('Email').fill(someone.items[0]!.email);
    // maxLength: 100 from the request schema, said before anything is sent.
    await page().getByLabel('Name').fill('x'.repeat(101));
    await page().getByRole('button', { name: 'Save' }).click();
    await page().getByText('Must be 100 characters or less').waitFor();
    // The duplicate email only the API knows about: its 409 names the field.
    await page().getByLabel('Name').fill(name);
    await page().getByRole('button', { name: 'Save' }).click();
    await page().getByText('another row already has this value').waitFor();
    await page().getByLabel('Email').fill(email);
    await page().getByRole('button', { name: 'Save' }).click();
    await page().waitForURL(/#\/customers\/[^/]+\/show/);
    customer = (await list<Customer>(`/customers?filter=email:Equal:${email}`))[0]!;
    expect(customer).to.include({ name, email });
  });

  it('creates an order with its customer picked by name and its tags chosen', async () => {
    expect(
      (await admin.api('/tags', { method: 'POST', body: JSON.stringify({ name: tag }) })).status,
    ).to.equal(201);
    await goto('orders/create');
    await page().getByRole('button', { name: 'Save' }).waitFor();
    await page().getByLabel('Customer').fill(name);
    await page()
      .getByRole('option', { name: `${name} (${email})` })
      .click();
    await page().getByLabel('Tags').fill(tag);
    await page().getByRole('option', { name: tag }).click();
    await page().getByLabel('Note').fill('Wrap it');
    await page().getByRole('button', { name: 'Save' }).click();
    await page().waitForURL(/#\/orders\/[^/]+\/show/);
    const id = decodeURIComponent(/#\/orders\/([^/]+)\/show/.exec(page().url())![1]!);
    order = (await admin.api<Order>(`/orders/${id}`)).body;
    expect(order.customerId).to.equal(customer.id);
    expect(order.tags.map((t) => t.name)).to.deep.equal([tag]);
  });

  it('filters the orders by their customer name', async () => {
    await goto('orders');
    await page().getByRole('table').waitFor();
    const headers = await page().getByRole('columnheader').allTextContents();
    expect(headers).to.include.members(['Customer', 'Status', 'Note', 'Tags']);
    await page().getByRole('button', { name: 'Add filter' }).click();
    await page().getByRole('menu').getByText('Customer name', { exact: true }).click();
    await page().getByLabel('Customer name').fill(stamp);
    const found = await list<Order>(`/orders?filter=customer.name:Contains:${stamp}`);
    expect(found.map((o) => o.id)).to.deep.equal([order.id]);
    await waitFor(async () => (await cells(page(), 'id')).join() === order.id, 'the one order');
    expect(await cells(page(), 'customerId')).to.deep.equal([`${name} (${email})`]);
  });

  it("shows the order's lines and tags, and links the customer to their orders", async () => {
    const line = await admin.api('/order-lines', {
      method: 'POST',
      body: JSON.stringify({ orderId: order.id, sku: `SKU-${stamp}`, quantity: 2, unitPrice: 9.5 }),
    });
    expect(line.status).to.equal(201);
    // Opened afresh: the line was added behind the page's back.
    await goto(`orders/${encodeURIComponent(order.id)}/show`);
    await page().reload();
    await page()
      .getByRole('cell', { name: `SKU-${stamp}` })
      .waitFor();
    await page().getByText(tag).waitFor();
    await goto(`customers/${encodeURIComponent(customer.id)}/show`);
    await page().getByRole('link', { name: 'Orders' }).click();
    await page().waitForURL(/#\/orders\?.*filter=/);
    await waitFor(
      async () => (await cells(page(), 'id')).join() === order.id,
      "the customer's order",
    );
  });

  it('runs Place from a draft, then shows it refused with the reason', async () => {
    await goto(`orders/${encodeURIComponent(order.id)}/show`);
    const place = page().getByRole('button', { name: 'Place' });
    expect(await place.isEnabled()).to.equal(true);
    await place.click();
    await waitFor(
      async () => (await admin.api<Order>(`/orders/${order.id}`)).body.status === 'placed',
    );
    await waitFor(() => place.isDisabled(), 'Place disabled');
    const reason = 'Allowed only when status is draft';
    await page().getByText(reason).waitFor();
    const describedBy = await place.getAttribute('aria-describedby');
    expect(await page().locator(`[id="${describedBy}"]`).textContent()).to.equal(reason);
  });

  it('refuses an edit of a customer changed meanwhile with a clear message (412)', async () => {
    await goto(`customers/${encodeURIComponent(customer.id)}`);
    await page().getByRole('button', { name: 'Save' }).waitFor();
    await page().getByLabel('Name').waitFor();
    const changed = await admin.api(`/customers/${customer.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ name: `${name} Souza` }),
    });
    expect(changed.status).to.equal(200);
    await page().getByLabel('Name').fill(`${name} Lima`);
    await page().getByRole('button', { name: 'Save' }).click();
    await page().getByText(STALE_ROW_MESSAGE).waitFor();
    expect((await admin.api<Customer>(`/customers/${customer.id}`)).body.name).to.equal(
      `${name} Souza`,
    );
    // Reloaded, the form holds the current row and its edit goes through (PATCH).
    await page().reload();
    await page().getByLabel('Name').fill(`${name} Lima`);
    await page().getByRole('button', { name: 'Save' }).click();
    await waitFor(
      async () =>
        (await admin.api<Customer>(`/customers/${customer.id}`)).body.name === `${name} Lima`,
    );
  });

  it('deletes the order, then its customer, each only once the confirmation is accepted', async () => {
    for (const [resource, id] of [
      ['orders', order.id],
      ['customers', customer.id],
    ] as const) {
      await goto(`${resource}/${encodeURIComponent(id)}/show`);
      await page().getByRole('button', { name: 'Delete' }).click();
      await page().getByRole('dialog').waitFor();
      expect((await admin.api(`/${resource}/${id}`)).status).to.equal(200);
      await page().getByRole('button', { name: 'Confirm' }).click();
      await waitFor(
        async () => (await admin.api(`/${resource}/${id}`)).status === 404,
        'the delete',
      );
      await waitFor(async () => new RegExp(`#/${resource}(\\?|$)`).test(page().url()), 'the list');
    }
  });
}
