// The admin UI of `DEMO=shop-secure npm run demo` on SQLite, driven in Debian's Chromium: the
// sign-in page asks for a bearer token (an anonymous visit, a wrong and an expired token all land
// there), a clerk signs in and sees the tenant's rows, runs the customer's Update button (with
// If-Match: a row changed meanwhile shows the stale-row message), an admin-only delete shows the API's 403
// and leaves the clerk signed in, signing out returns to the sign-in page, and an admin deletes a
// customer (softly) and brings it back with the list's Restore button. Tokens are signed with the
// fixed AUTH_JWT_SECRET the demo is started with, as scripts/demo-token.ts mints them.
import { expect } from 'chai';
import { STALE_ROW_MESSAGE } from '@slicekit/runtime/admin';
import { mintToken, type DemoCaller } from '../../scripts/demo-token.js';
import { cells, useAdminDemo, waitFor } from './support/admin-page.js';

interface Customer {
  id: string;
  name: string;
  email: string;
  deletedOn?: string | null;
}

const secret = 'admin-secure-suite-secret-of-40-bytes!!!';
const clerk: DemoCaller = { user: 'carl', roles: ['clerk'], tenant: 'ACME' };
const adminCaller: DemoCaller = { user: 'ada', roles: ['admin'], tenant: 'ACME' };
const token = (caller: DemoCaller, lifetimeSeconds?: number) =>
  mintToken(secret, caller, {}, lifetimeSeconds);

describe('admin UI of DEMO=shop-secure npm run demo on sqlite (Chromium)', function () {
  this.timeout(120_000);
  const admin = useAdminDemo('admin-secure-sqlite', () => ({
    DEMO: 'shop-secure',
    AUTH_JWT_SECRET: secret,
  }));
  const page = () => admin.page;
  const goto = (hash: string) => page().goto(`${admin.url}/admin#/${hash}`);
  const as = (caller: DemoCaller) => ({ headers: { authorization: `Bearer ${token(caller)}` } });
  const stamp = Date.now().toString(36);
  let customer: Customer;
  const clerkToken = token(clerk);

  /** The page is the sign-in page. */
  const atSignIn = async () => {
    await page().getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(page().url()).to.match(/#\/login$/);
  };
  const signIn = async (bearer: string) => {
    await page().getByLabel('Bearer token').fill(bearer);
    await page().getByRole('button', { name: 'Sign in' }).click();
  };
  // The token the admin keeps (admin/src/auth.tsx), read in the page.
  const storedToken = () =>
    page().evaluate<string | null>("window.sessionStorage.getItem('admin.token')");

  before(async () => {
    const made = await admin.api<Customer>('/customers', {
      method: 'POST',
      body: JSON.stringify({ email: `sec-${stamp}@example.com`, name: `Sec ${stamp}` }),
      ...as(adminCaller),
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    customer = made.body;
  });

  it('sends an anonymous visit, a wrong token and an expired one to the sign-in page', async () => {
    await goto('customers');
    await atSignIn();
    // Signed by another secret, then one that expired an hour ago: the API refuses both (401), and
    // the admin forgets the token and asks for another.
    for (const bearer of [
      mintToken('another-secret-of-at-least-32-bytes-long', clerk, {}),
      token(clerk, -3600),
    ]) {
      const refused = page().waitForResponse(
        (res) =>
          res.url().includes('/v1/') &&
          res.request().headers().authorization === `Bearer ${bearer}`,
      );
      await signIn(bearer);
      expect((await refused).status()).to.equal(401);
      await atSignIn();
      await waitFor(async () => (await storedToken()) === null, 'the token forgotten');
    }
  });

  it("signs a clerk in with a token, showing the tenant's customers", async () => {
    await signIn(clerkToken);
    await page().waitForURL((url) => !url.hash.startsWith('#/login'));
    await goto('customers');
    await waitFor(
      async () => (await cells(page(), 'email')).includes(customer.email),
      'the customer',
    );
  });

  it("lets a clerk run the customer's Update (PUT /{id}) from its show page", async () => {
    // The edit form is the merge patch; the PUT update is a button with its own form.
    await goto(`customers/${encodeURIComponent(customer.id)}/show`);
    const form = page()
      .locator('form')
      .filter({ has: page().getByRole('button', { name: 'Update' }) });
    // It starts from the row's values; only its parameters are sent.
    expect(await form.getByLabel('Email').inputValue()).to.equal(customer.email);
    await form.getByLabel('Name').fill(`Sec ${stamp} Lima`);
    const sent = page().waitForRequest((req) => req.method() === 'PUT');
    await form.getByRole('button', { name: 'Update' }).click();
    expect(new URL((await sent).url()).pathname).to.equal(`/v1/customers/${customer.id}`);
    expect(JSON.parse((await sent).postData()!)).to.have.keys('email', 'name');
    // With the ETag the page read the row with, as the edit form sends it.
    expect((await sent).headers()['if-match']).to.match(/^"[\w-]{22}"$/);
    await waitFor(
      async () =>
        (await admin.api<Customer>(`/customers/${customer.id}`, as(clerk))).body.name ===
        `Sec ${stamp} Lima`,
      'the update',
    );
  });

  it("refuses the Update button on a customer changed meanwhile with the edit form's message (412)", async () => {
    await goto(`customers/${encodeURIComponent(customer.id)}/show`);
    await page().reload();
    const form = page()
      .locator('form')
      .filter({ has: page().getByRole('button', { name: 'Update' }) });
    await waitFor(
      async () => (await form.getByLabel('Name').inputValue()) === `Sec ${stamp} Lima`,
      'the row read',
    );
    const changed = await admin.api(`/customers/${customer.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ name: `Sec ${stamp} Souza` }),
      ...as(clerk),
    });
    expect(changed.status).to.equal(200);
    await form.getByLabel('Name').fill(`Sec ${stamp} Costa`);
    const answer = page().waitForResponse((res) => res.request().method() === 'PUT');
    await form.getByRole('button', { name: 'Update' }).click();
    expect((await answer).status()).to.equal(412);
    await page().getByText(STALE_ROW_MESSAGE).waitFor();
    const kept = await admin.api<Customer>(`/customers/${customer.id}`, as(clerk));
    expect(kept.body.name).to.equal(`Sec ${stamp} Souza`);
  });

  it('shows a clerk the 403 of an admin-only delete and keeps them signed in', async () => {
    await goto(`customers/${encodeURIComponent(customer.id)}/show`);
    await page().getByRole('button', { name: 'Delete' }).click();
    const answer = page().waitForResponse((res) => res.request().method() === 'DELETE');
    await page().getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    const refused = await answer;
    expect(refused.status()).to.equal(403);
    const { detail } = (await refused.json()) as { detail: string };
    await page().getByText(detail).waitFor();
    expect((await admin.api(`/customers/${customer.id}`, as(adminCaller))).status).to.equal(200);
    expect(page().url()).not.to.match(/#\/login/);
    expect(await storedToken()).to.equal(clerkToken);
    await page().getByRole('button', { name: 'Delete' }).waitFor();
  });

  it('signs out from the user menu, back to the sign-in page', async () => {
    await page().getByRole('button', { name: 'Profile' }).click();
    await page().getByRole('menuitem', { name: 'Logout' }).click();
    await atSignIn();
    expect(await storedToken()).to.equal(null);
  });

  it('lets an admin delete the customer and bring it back with Restore', async () => {
    await signIn(token(adminCaller));
    await page().waitForURL((url) => !url.hash.startsWith('#/login'));
    await goto(`customers/${encodeURIComponent(customer.id)}/show`);
    await page().getByRole('button', { name: 'Delete' }).click();
    await page().getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await waitFor(
      async () => (await admin.api(`/customers/${customer.id}`, as(adminCaller))).status === 404,
      'the delete',
    );
    await waitFor(async () => /#\/customers(\?|$)/.test(page().url()), 'the list');
    await page().getByRole('button', { name: 'Add filter' }).click();
    await page().getByRole('menu').getByText('Deleted rows', { exact: true }).click();
    await page().getByLabel('Deleted rows').click();
    await page().getByRole('option', { name: 'only' }).click();
    await waitFor(
      async () => (await cells(page(), 'email')).includes(customer.email),
      'the deleted row',
    );
    const row = page().getByRole('row').filter({ hasText: customer.email });
    await row.getByRole('button', { name: 'Restore' }).click();
    await waitFor(
      async () => (await admin.api(`/customers/${customer.id}`, as(adminCaller))).status === 200,
      'the restore',
    );
    const back = await admin.api<Customer>(`/customers/${customer.id}`, as(adminCaller));
    expect(back.body.deletedOn ?? null).to.equal(null);
  });
});
