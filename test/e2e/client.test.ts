// The typed client of a generated app (`npm run client`, client/): written from the app's OpenAPI
// document for the Product app (with the idempotent Currency beside it) and the shop demo,
// type-checked (tsc, strict) with code a front end writes and the mistakes tsc must refuse
// (test/fixtures/client/), then driving the running shop demo: creates, a list by filters read
// page by page through its cursors, an action, and 409 and 422 problems read as typed values.
// The client never touches the database, so the demo runs on SQLite alone.
import { expect } from 'chai';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addEntity } from '../../scripts/generate.js';
import { generateApp } from '../generators/support/generated-app.js';
import { startDemo } from './support/demo.js';
import { run, type Served } from './support/processes.js';
import { appEnv, repoRoot, scratchFolder } from './support/workspace.js';

const fixtures = join(repoRoot, 'test/fixtures/client');

/** Writes the fixture into `<app>/check/` beside a tsconfig that checks it with client/ only. */
function addCheck(app: string, fixture: string): void {
  mkdirSync(join(app, 'check'), { recursive: true });
  copyFileSync(join(fixtures, fixture), join(app, 'check/usage.ts'));
  const tsconfig = { extends: './tsconfig.json', include: ['client', 'check'] };
  writeFileSync(join(app, 'tsconfig.client.json'), JSON.stringify(tsconfig));
}

describe('typed client (npm run client)', function () {
  this.timeout(120_000);
  let scratch: ReturnType<typeof scratchFolder> | undefined;
  let demo: Served | undefined;
  let productApp: string;
  let shopApp: string;
  let staleCheck = '';

  before(async function () {
    this.timeout(180_000);
    scratch = scratchFolder('client');
    productApp = join(scratch.path, 'product');
    shopApp = join(scratch.path, 'shop-demo');
    // The Product app's client is checked and written while the demo starts.
    const product = async () => {
      await generateApp(productApp, { name: 'product' });
      // Its routes take an idempotency key, which neither demo has.
      await addEntity(productApp, join(repoRoot, 'test/e2e/support/currency.yaml'));
      staleCheck = await run('npm', ['run', 'client', '--', '--check'], {
        cwd: productApp,
        env: appEnv(),
      }).then(
        () => 'exit 0',
        (error: Error) => error.message,
      );
      await run('npm', ['run', 'client'], { cwd: productApp, env: appEnv() });
    };
    [demo] = await Promise.all([startDemo({ DEMO: 'shop', DEMO_DIR: scratch.path }), product()]);
  });
  after(async () => {
    await demo?.stop();
    scratch?.remove();
  });

  it('is out of date after an entity is added, and npm run client brings it in step', async () => {
    expect(staleCheck).to.contain(
      'client/schema.ts is out of date with the slices: run npm run client',
    );
    await run('npm', ['run', 'client'], { cwd: shopApp, env: appEnv() });
    const product = readFileSync(join(productApp, 'client/schema.ts'), 'utf8');
    expect(product).to.contain("'/v1/products/{id}/approval'");
    expect(product).to.match(/ProductDto: \{[^}]*price: number;/);
    const shop = readFileSync(join(shopApp, 'client/schema.ts'), 'utf8');
    expect(shop).to.contain("status: 'draft' | 'placed' | 'shipped';");
  });

  it('compiles with strict tsc against the Product and shop apps, refusing wrong calls', async () => {
    addCheck(productApp, 'product.ts');
    addCheck(shopApp, 'shop.ts');
    await Promise.all(
      [productApp, shopApp].map((app) =>
        run('npx', ['tsc', '--noEmit', '-p', 'tsconfig.client.json'], { cwd: app, env: appEnv() }),
      ),
    );
  });

  it('drives the shop demo: creates, a filtered list by its cursors, an action, typed problems', async () => {
    const output = await run('node', ['--import', 'tsx', 'check/usage.ts', 'client-e2e'], {
      cwd: shopApp,
      env: appEnv({ BASE_URL: demo!.url }),
    });
    const seen = JSON.parse(output.trim().split('\n').at(-1)!) as {
      customer: { id: string; name: string };
      created: { id: string; customer: string; status: string; tags: string[] }[];
      pages: string[][];
      placed: { status: string; again?: string };
      refused: { status: number; code?: string; fields: string[] };
    };
    expect(seen.customer.name).to.equal('Ana client-e2e');
    expect(seen.created).to.have.length(3);
    for (const order of seen.created) {
      expect(order).to.deep.include({
        customer: 'Ana client-e2e',
        status: 'draft',
        tags: ['gift-client-e2e'],
      });
    }
    // Only this customer's orders (the seeded ones have other customers), by note, two a page.
    expect(seen.pages).to.deep.equal([['first', 'second'], ['third']]);
    expect(seen.placed).to.deep.equal({ status: 'placed', again: 'crud.rule_violation' });
    expect(seen.refused).to.deep.equal({
      status: 422,
      code: 'crud.invalid_reference',
      fields: ['customerId'],
    });
    const listed = await fetch(`${demo!.url}/v1/customers/${seen.customer.id}/orders`);
    const page = (await listed.json()) as { items: { id: string }[] };
    expect(page.items.map((order) => order.id)).to.have.members(seen.created.map((o) => o.id));
  });
});
