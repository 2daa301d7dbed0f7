// The admin UI at /admin of `npm run demo` (SQLite), driven in Debian's Chromium as a person uses
// it: the products table, search, sort by a column, a create refused by the form's own rules, then
// by the API, then accepted, an edit refused with 412 because the row changed meanwhile, an action
// button and a delete after its confirmation. Each step checks the page against what the API itself answers.
import { expect } from 'chai';
import { STALE_ROW_MESSAGE } from '@slicekit/runtime/admin';
import { cells, useAdminDemo, waitFor } from './support/admin-page.js';

interface Product {
  id: string;
  name: string;
  price: number;
  isDiscontinued: boolean;
}

describe('admin UI of npm run demo (Chromium)', function () {
  this.timeout(90_000);
  const admin = useAdminDemo('admin', () => ({}));
  let created: Product | undefined;

  const api = async <T>(path: string, init?: RequestInit): Promise<T> =>
    (await admin.api<T>(path, init)).body;
  const names = () => cells(admin.page, 'name');

  it('lists the products in a table with the DTO columns as headers', async () => {
    await admin.page.goto(`${admin.url}/admin`);
    await admin.page.getByRole('table').waitFor();
    const headers = await admin.page.getByRole('columnheader').allTextContents();
    expect(headers).to.include.members(['Name', 'Price', 'Is discontinued', 'Created on']);
    const { items } = await api<{ items: Product[] }>('/products');
    expect(await names()).to.deep.equal(items.map((p) => p.name));
  });

  it('searches, then sorts by a column as the API orders', async () => {
    const { items } = await api<{ items: Product[] }>('/products?pageSize=1');
    const term = items[0]!.name.split(' ')[1]!;
    await admin.page.getByRole('textbox', { name: 'Search' }).fill(term);
    const found = await api<{ items: Product[] }>(`/products?search=${encodeURIComponent(term)}`);
    await admin.page.waitForURL(/filter=/);
    await waitFor(
      async () => (await names()).join('|') === found.items.map((p) => p.name).join('|'),
    );
    await admin.page.getByRole('textbox', { name: 'Search' }).fill('');
    await admin.page.getByRole('columnheader', { name: 'Price' }).getByRole('button').click();
    const sorted = await api<{ items: Product[] }>('/products?orderBy=price&pageSize=10');
    await waitFor(
      async () => (await names()).join('|') === sorted.items.map((p) => p.name).join('|'),
    );
  });

  it('checks the request rules, shows the API field error, then creates the product', async () => {
    const before = await api<{ totalItemCount: number }>('/products');
    await admin.page.getByRole('link', { name: 'Create' }).click();
    // The list's "Sort by name" header matches the label too until the form replaces it.
    await admin.page.getByRole('button', { name: 'Save' }).waitFor();
    await admin.page.getByLabel('Name').fill('   ');
    // The request schema's minimum (0.01), said before anything is sent.
    await admin.page.getByLabel('Price').fill('0');
    await admin.page.getByRole('button', { name: 'Save' }).click();
    await admin.page.getByText('Must be at least 0.01').waitFor();
    expect((await api<{ totalItemCount: number }>('/products')).totalItemCount).to.equal(
      before.totalItemCount,
    );
    // A blank name only the API refuses: its message beside the field.
    await admin.page.getByLabel('Price').fill('12.5');
    await admin.page.getByRole('button', { name: 'Save' }).click();
    const refused = await api<{ errors: { field: string; message: string }[] }>('/products', {
      method: 'POST',
      body: JSON.stringify({ name: '   ', price: 12.5 }),
    });
    const message = refused.errors.find((e) => e.field === 'name')!.message;
    await admin.page.getByText(message).waitFor();
    await admin.page.getByLabel('Name').fill('Admin lamp');
    await admin.page.getByRole('button', { name: 'Save' }).click();
    await admin.page.waitForURL(/#\/products\/[^/]+\/show/);
    const id = decodeURIComponent(/#\/products\/([^/]+)\/show/.exec(admin.page.url())![1]!);
    created = await api<Product>(`/products/${id}`);
    expect(created).to.include({ name: 'Admin lamp', price: 12.5 });
  });

  it('refuses an edit of a row changed meanwhile with a clear message (412)', async () => {
    await admin.page.getByRole('link', { name: 'Edit' }).click();
    await admin.page.getByRole('button', { name: 'Save' }).waitFor();
    await admin.page.getByLabel('Price').waitFor();
    await api(`/products/${created!.id}`, { method: 'PUT', body: JSON.stringify({ price: 99 }) });
    await admin.page.getByLabel('Price').fill('20');
    await admin.page.getByRole('button', { name: 'Save' }).click();
    await admin.page.getByText(STALE_ROW_MESSAGE).waitFor();
    expect((await api<Product>(`/products/${created!.id}`)).price).to.equal(99);
  });

  it('runs actions from the show page: a form of its parameter, then a button', async () => {
    await admin.page.goto(`${admin.url}/admin#/products/${encodeURIComponent(created!.id)}/show`);
    // Approve's form starts from the row; only its parameter is sent.
    await admin.page.getByLabel('By user').fill('alice');
    const sent = admin.page.waitForRequest((req) => req.url().endsWith('/approval'));
    await admin.page.getByRole('button', { name: 'Approve' }).click();
    expect(JSON.parse((await sent).postData()!)).to.deep.equal({ byUser: 'alice' });
    // With the ETag the page read the row with, as the edit form sends it.
    expect((await sent).headers()['if-match']).to.match(/^"[\w-]{22}"$/);
    await waitFor(
      async () =>
        (await api<{ updatedBy: string }>(`/products/${created!.id}`)).updatedBy === 'alice',
    );
    // Clicked at once, the page maybe not read again: Approve's own change is no conflict.
    await admin.page.getByRole('button', { name: 'Discontinue' }).click();
    await waitFor(async () => (await api<Product>(`/products/${created!.id}`)).isDiscontinued);
  });

  it('deletes the product only once the confirmation is accepted', async () => {
    await admin.page.getByRole('button', { name: 'Delete' }).click();
    await admin.page.getByRole('dialog').waitFor();
    expect((await fetch(`${admin.url}/v1/products/${created!.id}`)).status).to.equal(200);
    await admin.page.getByRole('button', { name: 'Confirm' }).click();
    await waitFor(
      async () => (await fetch(`${admin.url}/v1/products/${created!.id}`)).status === 404,
    );
    // Back on the list, without the row.
    await waitFor(async () => /#\/products(\?|$)/.test(admin.page.url()));
    await admin.page.getByRole('table').waitFor();
    expect(await names()).not.to.include('Admin lamp');
  });
});
