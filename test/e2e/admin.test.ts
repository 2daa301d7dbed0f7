// The admin UI at /admin of `npm run demo` (SQLite), driven in Debian's Chromium as a person uses
// it: the products table, search, sort by a column, a create refused by the API then accepted, an
// edit refused with 412 because the row changed meanwhile, an action button and a delete after its
// confirmation. Each step checks the page against what the API itself answers.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { STALE_ROW_MESSAGE } from '@slicekit/runtime/admin';
import { openBrowser, chromiumPath, type Browser } from './support/browser.js';
import { startDemo } from './support/demo.js';
import type { Served } from './support/processes.js';
import { scratchFolder } from './support/workspace.js';

interface Product {
  id: string;
  name: string;
  price: number;
  isDiscontinued: boolean;
}

describe('admin UI of npm run demo (Chromium)', function () {
  this.timeout(90_000);
  let scratch: ReturnType<typeof scratchFolder> | undefined;
  let demo: Served | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let created: Product | undefined;

  before(async function () {
    if (!existsSync(chromiumPath)) {
      if (process.env.REQUIRE_SERVICES === '1') throw new Error(`no Chromium at ${chromiumPath}`);
      console.warn(`admin UI: no Chromium at ${chromiumPath}; skipping`);
      this.skip();
    }
    scratch = scratchFolder('admin');
    demo = await startDemo({ DEMO_DIR: scratch.path, ADMIN_ENABLED: 'true' });
    browser = await openBrowser('admin');
    page = browser.page;
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && browser) {
      console.log(`admin UI: screenshot ${await browser.screenshot(this.currentTest.title)}`);
    }
  });
  after(async () => {
    await browser?.close();
    await demo?.stop();
    scratch?.remove();
  });

  const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const res = await fetch(`${demo!.url}/v1${path}`, {
      ...init,
      headers: { 'content-type': 'application/json' },
    });
    return (await res.json()) as T;
  };
  const names = () => page.locator('tbody td.column-name').allTextContents();

  it('lists the products in a table with the DTO columns as headers', async () => {
    await page.goto(`${demo!.url}/admin`);
    await page.getByRole('table').waitFor();
    const headers = await page.getByRole('columnheader').allTextContents();
    expect(headers).to.include.members(['Name', 'Price', 'Is discontinued', 'Created on']);
    const { items } = await api<{ items: Product[] }>('/products');
    expect(await names()).to.deep.equal(items.map((p) => p.name));
  });

  it('searches, then sorts by a column as the API orders', async () => {
    const { items } = await api<{ items: Product[] }>('/products?pageSize=1');
    const term = items[0]!.name.split(' ')[1]!;
    await page.getByRole('textbox', { name: 'Search' }).fill(term);
    const found = await api<{ items: Product[] }>(`/products?search=${encodeURIComponent(term)}`);
    await page.waitForURL(/filter=/);
    await waitFor(
      async () => (await names()).join('|') === found.items.map((p) => p.name).join('|'),
    );
    await page.getByRole('textbox', { name: 'Search' }).fill('');
    await page.getByRole('columnheader', { name: 'Price' }).getByRole('button').click();
    const sorted = await api<{ items: Product[] }>('/products?orderBy=price&pageSize=10');
    await waitFor(
      async () => (await names()).join('|') === sorted.items.map((p) => p.name).join('|'),
    );
  });

  it('shows the API field error beside the field, then creates the product', async () => {
    await page.getByRole('link', { name: 'Create' }).click();
    await page.getByLabel('Name').fill('Admin lamp');
    await page.getByLabel('Price').fill('0');
    await page.getByRole('button', { name: 'Save' }).click();
    const refused = await api<{ errors: { field: string; message: string }[] }>('/products', {
      method: 'POST',
      body: JSON.stringify({ name: 'Admin lamp', price: 0 }),
    });
    const message = refused.errors.find((e) => e.field === 'price')!.message;
    await page.getByText(message).waitFor();
    await page.getByLabel('Price').fill('12.5');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/#\/products\/[^/]+\/show/);
    const id = decodeURIComponent(/#\/products\/([^/]+)\/show/.exec(page.url())![1]!);
    created = await api<Product>(`/products/${id}`);
    expect(created).to.include({ name: 'Admin lamp', price: 12.5 });
  });

  it('refuses an edit of a row changed meanwhile with a clear message (412)', async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Price').waitFor();
    await api(`/products/${created!.id}`, { method: 'PUT', body: JSON.stringify({ price: 99 }) });
    await page.getByLabel('Price').fill('20');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(STALE_ROW_MESSAGE).waitFor();
    expect((await api<Product>(`/products/${created!.id}`)).price).to.equal(99);
  });

  it('runs an action from its button on the show page', async () => {
    await page.goto(`${demo!.url}/admin#/products/${encodeURIComponent(created!.id)}/show`);
    await page.getByRole('button', { name: 'Discontinue' }).click();
    await waitFor(async () => (await api<Product>(`/products/${created!.id}`)).isDiscontinued);
  });

  it('deletes the product only once the confirmation is accepted', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').waitFor();
    expect((await fetch(`${demo!.url}/v1/products/${created!.id}`)).status).to.equal(200);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await waitFor(
      async () => (await fetch(`${demo!.url}/v1/products/${created!.id}`)).status === 404,
    );
    // Back on the list, without the row.
    await waitFor(async () => /#\/products(\?|$)/.test(page.url()));
    await page.getByRole('table').waitFor();
    expect(await names()).not.to.include('Admin lamp');
  });
});

/** Resolves once `check` holds, polling for up to 10 s. */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('the page did not reach the expected state within 10 s');
}
