// A generated app whose database stops answering: with the network to PostgreSQL or MySQL stalled
// (a proxy that goes silent) or the SQLite file locked by another connection, every route answers
// 503 problem+json with Retry-After within a bounded time instead of hanging, and the app serves
// again by itself once the database answers. Also: a setting the app cannot parse stops it at start.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import type { Express } from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import { scratchFolder } from '../e2e/support/workspace.js';
import { allDialects, useDatabase } from '../support/services.js';
import { startStallProxy, type StallProxy } from '../support/stall-proxy.js';
import {
  generateApp,
  importAppModules,
  writeSlice,
  type AppModules,
} from './support/generated-app.js';

// Shorter than the defaults (5000 ms), so the suite stays quick; the bound is what is checked.
const TIMEOUT_MS = 2000;
const settings = {
  DATABASE_ACQUIRE_TIMEOUT_MS: String(TIMEOUT_MS),
  DATABASE_CONNECT_TIMEOUT_MS: String(TIMEOUT_MS),
  DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
  DATABASE_BUSY_TIMEOUT_MS: '1000',
};
// The statement timeout, PostgreSQL's extra second, an acquire wait, and room for a slow machine.
const BOUND_MS = 4 * TIMEOUT_MS + 2000;

// A hand-written route that lets a database error reach the app's problem handler.
const probeSlice = `import type { SliceModule } from '@slicekit/runtime/crud';

const slice: SliceModule = {
  name: 'probe',
  dto: { name: 'ProbeDto', schema: { type: 'object' }, resource: undefined as never },
  mount(router, { knex }) {
    router.get('/probe', async (_req, res) => {
      res.json(await knex('products').count({ n: '*' }));
    });
  },
};

export default slice;
`;

let scratch: ReturnType<typeof scratchFolder>;
let appDir: string;
let modules: AppModules;

before(async function () {
  this.timeout(60_000);
  scratch = scratchFolder('app-outage');
  appDir = join(scratch.path, 'shop');
  await generateApp(appDir);
  writeSlice(appDir, 'probe', probeSlice);
  modules = await importAppModules(appDir, settings);
});

after(() => scratch?.remove());

interface Timed {
  status: number;
  ms: number;
  res: request.Response;
}

async function timed(send: () => request.Test): Promise<Timed> {
  const started = Date.now();
  const res = await send();
  return { status: res.status, ms: Date.now() - started, res };
}

function expectUnavailable(result: Timed, what: string): void {
  expect(result.status, `${what}: ${result.res.text}`).to.equal(503);
  expect(result.res.type, what).to.equal('application/problem+json');
  expect(result.res.headers['retry-after'], what).to.equal('5');
  expect(result.res.body, what).to.include({ status: 503, code: 'database.unavailable' });
  expect(result.ms, `${what} answered after ${result.ms} ms`).to.be.below(BOUND_MS);
}

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

for (const dialect of allDialects) {
  describe(`a generated app whose database stops answering, on ${dialect}`, function () {
    this.timeout(60_000);
    const db = useDatabase(dialect);
    let proxy: StallProxy | undefined;
    let holder: Database.Database | undefined;
    let knex: Knex;
    let app: Express;
    let id: string;

    before(async () => {
      if (dialect !== 'sqlite') proxy = await startStallProxy(db.url);
      knex = modules.createKnex(proxy ? proxy.proxied(db.url) : db.url);
      const logger = modules.createLogger(process.env.OUTAGE_LOG ?? 'silent');
      await modules.migrate(knex, logger);
      app = await modules.createApp({ knex, logger, auth: {} });
      const created = await request(app).post('/v1/products').send({ name: 'Lamp', price: 20 });
      expect(created.status, created.text).to.equal(201);
      id = created.body.id as string;
    });

    after(async () => {
      holder?.close();
      proxy?.resume();
      await knex?.destroy();
      await proxy?.close();
    });

    it('answers 503 with Retry-After on every kind of route, within the bound', async () => {
      // Connections in the pool, as in a server that has been serving.
      await Promise.all([1, 2, 3].map(() => request(app).get(`/v1/products/${id}`).expect(200)));
      if (proxy) {
        proxy.stall();
      } else {
        holder = new Database(db.url);
        holder.exec('BEGIN EXCLUSIVE');
      }
      const [list, one, create, probe] = await Promise.all([
        timed(() => request(app).get('/v1/products')),
        timed(() => request(app).get(`/v1/products/${id}`)),
        timed(() => request(app).post('/v1/products').send({ name: 'Desk', price: 120 })),
        timed(() => request(app).get('/v1/probe')),
      ]);
      expectUnavailable(list, 'the list route');
      expectUnavailable(one, 'get by id');
      expectUnavailable(create, 'create');
      expectUnavailable(probe, "a hand-written route, through the app's problem handler");
    });

    it('serves again by itself once the database answers', async () => {
      if (proxy) proxy.resume();
      else holder?.exec('COMMIT');
      await eventually(
        async () => (await request(app).get(`/v1/products/${id}`)).status === 200,
        10_000,
      );
      const created = await request(app).post('/v1/products').send({ name: 'Desk', price: 120 });
      expect(created.status, created.text).to.equal(201);
      const list = await request(app).get('/v1/products');
      expect(list.status).to.equal(200);
      expect(list.body.totalItemCount).to.equal(2);
    });
  });
}

describe('a generated app with a setting it cannot parse', function () {
  this.timeout(60_000);

  for (const [name, value] of [
    ['AUTH_REQUIRED', 'enabled'],
    ['PORT', 'eighty'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '5s'],
  ] as const) {
    it(`stops at start naming ${name}, with exit code 1 and no stack trace`, () => {
      const result = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--conditions=slicekit-source', 'src/server.ts'],
        {
          cwd: appDir,
          env: { ...process.env, [name]: value, DATABASE_URL: join(scratch.path, 'unused.sqlite') },
          encoding: 'utf8',
          timeout: 30_000,
        },
      );
      expect(result.status, result.stderr).to.equal(1);
      expect(result.stderr).to.contain(
        `cannot start: invalid setting ${name}="${value}": expected`,
      );
      expect(result.stderr).not.to.match(/\n\s+at /);
    });
  }
});
