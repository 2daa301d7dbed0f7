// `npm run demo` itself: the seeded Product API on SQLite by default, with every spec scenario
// over HTTP, DATABASE_URL plus SEED=0 honoured on PostgreSQL (and the demo's folder built and
// started again by a second process), and DEMO=shop-secure (the secure shop, seeded under
// SEED_TENANT, its tokens in the claims AUTH_* name) on MySQL. DEMO=shop runs on the three
// databases in docs-examples.test.ts.
import { expect } from 'chai';
import { join } from 'node:path';
import { useDatabase } from '../support/services.js';
import { startDemo } from './support/demo.js';
import { run, type Served } from './support/processes.js';
import { describeProductScenarios } from './support/product-scenarios.js';
import { mintToken } from '../../scripts/demo-token.js';
import { describeShopScenarios } from './support/shop-scenarios.js';
import { replica } from './support/replicas.js';
import { sendTo } from './support/round-robin.js';
import { ensureRuntimeBuilt, plainEnv, repoRoot, scratchFolder } from './support/workspace.js';

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

  describe('DEMO=shop-secure, on MySQL through DATABASE_URL, without AUTH_JWT_SECRET', () => {
    const db = useDatabase('mysql');
    let scratch: ReturnType<typeof scratchFolder> | undefined;
    let demo: Served | undefined;
    // The claims renamed as for Keycloak, and the seeds under a tenant of their own.
    const settings = {
      AUTH_ROLES_CLAIM: 'realm_access.roles',
      AUTH_TENANT_CLAIM: 'org',
      SEED_TENANT: 'Globex',
    };
    before(async () => {
      scratch = scratchFolder('demo-shop-secure');
      demo = await startDemo({
        DEMO: 'shop-secure',
        DEMO_DIR: scratch.path,
        DATABASE_URL: db.url,
        AUTH_JWT_SECRET: '',
        ...settings,
      });
    });
    after(async () => {
      await demo?.stop();
      scratch?.remove();
    });
    /** A token the demo printed (`export ADMIN='...'`). */
    const printed = (name: string) =>
      new RegExp(`export ${name}='([^']+)'`).exec(demo!.output())?.[1] ?? '';
    /** The secret the demo made for this run, as it printed it. */
    const secret = () => /AUTH_JWT_SECRET='([^']+)'/.exec(demo!.output())?.[1] ?? '';
    const get = async (path: string, token: string) => {
      const res = await fetch(`${demo!.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: (await res.json()) as { totalItemCount?: number } };
    };

    it('prints the secret it made and tokens that work: an admin of Globex sees the seeded orders, its clerk none, another tenant 404', async () => {
      expect(demo!.output()).to.contain('the secure shop API is up at');
      expect(demo!.output()).to.contain('AUTH_JWT_SECRET was not set');
      expect(Buffer.byteLength(secret())).to.be.at.least(32);
      expect((await fetch(`${demo!.url}/v1/orders`)).status).to.equal(401);
      const all = await get('/v1/orders', printed('ADMIN'));
      expect(all.body.totalItemCount).to.be.above(0);
      expect((await get('/v1/orders', printed('CLERK'))).body.totalItemCount).to.equal(0);
      expect((await get('/v1/customers', printed('OTHER'))).body.totalItemCount).to.equal(0);
      const seeded = /\/v1\/customers\/([\w-]+) -H "authorization: Bearer \$OTHER"/.exec(
        demo!.output(),
      )?.[1];
      expect((await get(`/v1/customers/${seeded}`, printed('ADMIN'))).status).to.equal(200);
      expect((await get(`/v1/customers/${seeded}`, printed('OTHER'))).status).to.equal(404);
    });

    it('refuses to start with an AUTH_JWT_SECRET shorter than 32 bytes, naming it', async () => {
      const failed = await run('npm', ['run', 'demo'], {
        cwd: repoRoot,
        env: plainEnv({ DEMO: 'shop-secure', DEMO_DIR: scratch!.path, AUTH_JWT_SECRET: 'short' }),
      }).then(
        () => '',
        (error: unknown) => String(error),
      );
      expect(failed).to.contain('AUTH_JWT_SECRET has 5 bytes; HS256 needs at least 32');
    });

    describeShopScenarios(() => demo!.url, {
      softDelete: true,
      headers: () => ({
        authorization: `Bearer ${mintToken(secret(), { user: 'ada', roles: ['admin'], tenant: 'Globex' }, settings)}`,
      }),
    });
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
