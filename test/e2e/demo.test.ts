// `npm run demo` itself: the seeded Product API on SQLite by default, with every spec scenario
// over HTTP, DATABASE_URL plus SEED=0 honoured on PostgreSQL (and the demo's folder built and
// started again by a second process), and DEMO=shop (the shop example, seeded) on MySQL.
import { expect } from 'chai';
import { join } from 'node:path';
import { useDatabase } from '../support/services.js';
import { startDemo } from './support/demo.js';
import { run, type Served } from './support/processes.js';
import { describeProductScenarios } from './support/product-scenarios.js';
import { describeShopScenarios } from './support/shop-scenarios.js';
import { replica } from './support/replicas.js';
import { sendTo } from './support/round-robin.js';
import { ensureRuntimeBuilt, plainEnv, scratchFolder } from './support/workspace.js';

describe('npm run demo', function () {
  this.timeout(120_000);

  describe('with the defaults (SQLite inside the demo folder)', () => {
    let scratch: ReturnType<typeof scratchFolder> | undefined;
    let demo: Served | undefined;
    before(async () => {
      scratch = scratchFolder('demo-sqlite');
      demo = await startDemo({ DEMO_DIR: scratch.path });
    });
    after(async () => {
      await demo?.stop();
      scratch?.remove();
    });

    it('serves the seeded Product API and prints the URL and curl lines to try', async () => {
      const url = `http://localhost:${new URL(demo!.url).port}/v1/products`;
      expect(demo!.output()).to.contain(`the Product API is up at ${url}`);
      expect(demo!.output()).to.contain(`curl -s -X POST ${url}`);
      const res = await fetch(`${demo!.url}/v1/products`);
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { totalItemCount: number }).totalItemCount).to.be.above(0);
    });

    describeProductScenarios(() => demo!.url);

    it('logs a line for each product created, from the subscriber the demo registers', async () => {
      const created = await fetch(`${demo!.url}/v1/products`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Logged lamp', price: 12.5 }),
      });
      expect(created.status).to.equal(201);
      const { id } = (await created.json()) as { id: string };
      const line = () =>
        demo!
          .output()
          .split('\n')
          .find((l) => l.includes('"msg":"product created"') && l.includes(id));
      for (let i = 0; i < 50 && !line(); i++) await new Promise((done) => setTimeout(done, 100));
      expect(JSON.parse(line() ?? '{}')).to.include({ id, name: 'Logged lamp', price: 12.5 });
    });
  });

  describe('DEMO=shop, on MySQL through DATABASE_URL', () => {
    const db = useDatabase('mysql');
    let scratch: ReturnType<typeof scratchFolder> | undefined;
    let demo: Served | undefined;
    before(async () => {
      scratch = scratchFolder('demo-shop');
      demo = await startDemo({ DEMO: 'shop', DEMO_DIR: scratch.path, DATABASE_URL: db.url });
    });
    after(async () => {
      await demo?.stop();
      scratch?.remove();
    });

    it('serves the seeded shop: orders of seeded customers, with their tags, and the URLs to try', async () => {
      expect(demo!.output()).to.contain('the shop API is up at');
      const res = await fetch(`${demo!.url}/v1/orders?pageSize=1`);
      const page = (await res.json()) as { totalItemCount: number; items: { customer: object }[] };
      expect(page.totalItemCount).to.be.above(0);
      expect(page.items[0]!.customer).to.have.property('name');
      expect(Number((await db.knex('order_tags').count({ n: '*' }))[0]?.n)).to.be.above(0);
    });

    describeShopScenarios(() => demo!.url);
  });

  describe('with DATABASE_URL on PostgreSQL and SEED=0', () => {
    const db = useDatabase('postgres');
    let scratch: ReturnType<typeof scratchFolder> | undefined;
    let demo: Served | undefined;
    before(async () => {
      scratch = scratchFolder('demo-postgres');
      demo = await startDemo({ DEMO_DIR: scratch.path, DATABASE_URL: db.url, SEED: '0' });
    });
    after(async () => {
      await demo?.stop();
      scratch?.remove();
    });

    it('serves an empty table from that database, and stores what it is sent there', async () => {
      const list = await fetch(`${demo!.url}/v1/products`);
      expect(((await list.json()) as { totalItemCount: number }).totalItemCount).to.equal(0);
      expect(demo!.output()).to.contain('/v1/products/<id>/approval');
      expect(demo!.output()).to.contain('the database holds no rows yet');
      const created = await fetch(`${demo!.url}/v1/products`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Kettle', price: 39.9 }),
      });
      expect(created.status).to.equal(201);
      const rows = await db.knex('products').select('name');
      expect(rows.map((row: { name: string }) => row.name)).to.deep.equal(['Kettle']);
    });

    it('stops on SIGINT sent to npm alone, freeing its port, then runs again keeping its rows', async () => {
      // Started without a terminal, only npm gets the signal: the demo must still stop its server.
      await demo!.signal('SIGINT');
      const refused = await fetch(`${demo!.url}/v1/products`).then(
        () => false,
        () => true,
      );
      expect(refused, 'the port is free').to.equal(true);
      demo = await startDemo({ DEMO_DIR: scratch!.path, DATABASE_URL: db.url, SEED: '0' });
      const list = await fetch(`${demo.url}/v1/products`);
      const page = (await list.json()) as { items: { id: string; name: string }[] };
      expect(page.items.map((item) => item.name)).to.deep.equal(['Kettle']);
      // The curl lines it prints name the row the database now holds.
      expect(demo.output()).to.contain(`/v1/products/${page.items[0]!.id}/approval`);
    });

    it('runs a second process from its folder: npm run build, then npm start on ports of its own', async () => {
      // The compiled app imports the runtime's build, as an installed one does.
      ensureRuntimeBuilt();
      const app = join(scratch!.path, 'product-demo');
      await run('npm', ['run', 'build'], { cwd: app, env: plainEnv() });
      const second = replica(app, { DATABASE_URL: db.url });
      try {
        await second.start();
        const list = await sendTo(second.port, { method: 'GET', path: '/v1/products' });
        const page = JSON.parse(list.text) as { items: { name: string }[] };
        expect(page.items.map((item) => item.name)).to.deep.equal(['Kettle']);
      } finally {
        await second.stop();
      }
    });
  });
});
