// A generated app's probes, CORS and shutdown, on one app shared by every case: /health/live and
// /health/ready on SQLite, PostgreSQL and MySQL (unready before migrations and while the database
// stalls, ready again when it answers), the probes out of the OpenAPI document and the info log,
// a CORS preflight with AUTH_REQUIRED, and real processes drained by SIGTERM.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { expect } from 'chai';
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

const ORIGIN = 'https://app.example.com';
// Shorter than the defaults, so a stalled database fails quickly; the health bound is 2000 ms.
const settings = {
  DATABASE_ACQUIRE_TIMEOUT_MS: '2000',
  DATABASE_CONNECT_TIMEOUT_MS: '2000',
  DATABASE_STATEMENT_TIMEOUT_MS: '2000',
  DATABASE_BUSY_TIMEOUT_MS: '1000',
  CORS_ORIGINS: `${ORIGIN},http://localhost:5173`,
};

// A route that holds its answer until released, to have a request in flight at SIGTERM.
const slowSlice = `import type { SliceModule } from '@slicekit/runtime/crud';

let waiting = 0;
let release: () => void = () => undefined;
let held = new Promise<void>((resolve) => (release = resolve));

const slice: SliceModule = {
  name: 'slow',
  dto: { name: 'SlowDto', schema: { type: 'object' }, resource: undefined as never },
  mount(router) {
    router.get('/slow', async (_req, res) => {
      waiting++;
      await held;
      waiting--;
      res.json({ done: true });
    });
    router.get('/slow-waiting', (_req, res) => {
      res.json({ waiting });
    });
    router.post('/slow-release', (_req, res) => {
      release();
      held = new Promise<void>((resolve) => (release = resolve));
      res.json({ released: true });
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
  scratch = scratchFolder('app-health');
  appDir = join(scratch.path, 'shop');
  await generateApp(appDir);
  writeSlice(appDir, 'slow', slowSlice);
  modules = await importAppModules(appDir, settings);
});

after(() => scratch?.remove());

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function tableNames(knex: Knex): Promise<string[]> {
  const client = (knex.client.config as Knex.Config).client;
  if (client === 'better-sqlite3') {
    const rows = (await knex.raw(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'",
    )) as { name: string }[];
    return rows.map((row) => row.name);
  }
  const rows = await knex('information_schema.tables')
    .where('table_schema', client === 'pg' ? 'public' : knex.raw('database()'))
    .select({ name: 'table_name' });
  return (rows as { name: string }[]).map((row) => row.name);
}

for (const dialect of allDialects) {
  describe(`a generated app's readiness on ${dialect}`, function () {
    this.timeout(60_000);
    const db = useDatabase(dialect);
    let proxy: StallProxy | undefined;
    let holder: Database.Database | undefined;
    let knex: Knex;
    let app: Express;
    let logger: unknown;

    before(async () => {
      if (dialect !== 'sqlite') proxy = await startStallProxy(db.url);
      knex = modules.createKnex(proxy ? proxy.proxied(db.url) : db.url);
      logger = modules.createLogger('silent');
      app = await modules.createApp({ knex, logger, auth: {} });
    });

    after(async () => {
      holder?.close();
      proxy?.resume();
      await knex?.destroy();
      await proxy?.close();
    });

    it('is live but not ready on a database not migrated, and creates no table', async () => {
      await request(app).get('/health/live').expect(200, { status: 'up' });
      const ready = await request(app).get('/health/ready');
      expect(ready.status, ready.text).to.equal(503);
      expect(ready.type).to.equal('application/problem+json');
      expect(ready.body).to.include({
        code: 'health.unready',
        detail: 'not ready: database is down',
      });
      expect(ready.body.checks[0]).to.include({ name: 'database', status: 'down', critical: true });
      expect(ready.body.checks[0].reason).to.match(/^not migrated: \d+ migrations are pending$/);
      expect(await tableNames(db.knex)).to.deep.equal([]);
    });

    it('is ready once migrated', async () => {
      await modules.migrate(knex, logger);
      const ready = await request(app).get('/health/ready');
      expect(ready.status, ready.text).to.equal(200);
      expect(ready.body).to.deep.equal({
        status: 'up',
        checks: [{ name: 'database', status: 'up', critical: true }],
      });
    });

    it('turns unready while the database stalls, and ready again when it answers', async () => {
      if (proxy) {
        proxy.stall();
      } else {
        holder = new Database(db.url);
        holder.exec('BEGIN EXCLUSIVE');
      }
      const stalled = await request(app).get('/health/ready');
      expect(stalled.status, stalled.text).to.equal(503);
      expect(stalled.body.code).to.equal('health.unready');
      expect(stalled.body.checks[0]).to.include({ name: 'database', status: 'down' });
      await request(app).get('/health/live').expect(200);

      if (proxy) proxy.resume();
      else holder?.exec('COMMIT');
      await eventually(
        async () => (await request(app).get('/health/ready')).status === 200,
        15_000,
      );
    });
  });
}

describe("a generated app's probes, documents, logs and CORS", function () {
  this.timeout(60_000);
  const db = useDatabase('sqlite');
  let knex: Knex;
  const lines: { level: number; url?: string; msg: string }[] = [];
  let app: Express;
  let guarded: Express;

  before(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as (typeof lines)[number]);
      }
    });
    knex = modules.createKnex(db.url);
    const logger = modules.createLogger('info', stream);
    await modules.migrate(knex, logger);
    app = await modules.createApp({ knex, logger, auth: {} });
    const auth = { required: true, jwtSecret: 'a-secret-of-at-least-thirty-two-bytes!!' };
    guarded = await modules.createApp({ knex, logger, auth });
  });

  after(async () => {
    await knex?.destroy();
  });

  it('keeps the probes out of the OpenAPI document', async () => {
    const document = await request(app).get('/openapi.json').expect(200);
    const paths = Object.keys(document.body.paths as object);
    expect(paths).to.include('/v1/products');
    expect(paths.filter((path) => path.includes('health'))).to.deep.equal([]);
  });

  it('logs the probes below info, and other requests at info', async () => {
    lines.length = 0;
    await request(app).get('/health/live').expect(200);
    await request(app).get('/health/ready').expect(200);
    await request(app).get('/v1/products').expect(200);
    await eventually(async () => lines.some((line) => line.url === '/v1/products'), 5000);
    const requests = lines.filter((line) => line.msg === 'request').map((line) => line.url);
    expect(requests).to.deep.equal(['/v1/products']);
  });

  it('answers the probes at their two paths only, other methods there with 405', async () => {
    const posted = await request(app).post('/health/live').expect(405);
    expect(posted.headers.allow).to.equal('GET, HEAD');
    await request(app).head('/health/ready').expect(200);
    await request(app).get('/health/live/').expect(200);
    await request(app).get('/health').expect(404);
    await request(app).get('/health/other').expect(404);
  });

  it('answers the probes without a token when AUTH_REQUIRED is on', async () => {
    await request(guarded).get('/health/live').expect(200);
    await request(guarded).get('/health/ready').expect(200);
    await request(guarded).get('/v1/products').expect(401);
  });

  it('answers a CORS preflight for a listed origin before authentication', async () => {
    const preflight = await request(guarded)
      .options('/v1/products')
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(preflight.status).to.equal(204);
    expect(preflight.headers['access-control-allow-origin']).to.equal(ORIGIN);
    expect(preflight.headers['access-control-allow-methods']).to.contain('POST');
    expect(preflight.headers['access-control-allow-headers']).to.contain('authorization');
    // A refusal is readable by the page too, so it can tell the user to sign in.
    const refused = await request(guarded).get('/v1/products').set('Origin', ORIGIN);
    expect(refused.status).to.equal(401);
    expect(refused.headers['access-control-allow-origin']).to.equal(ORIGIN);
  });

  it('sends no allow header to an origin not listed', async () => {
    const preflight = await request(guarded)
      .options('/v1/products')
      .set('Origin', 'https://evil.example.com')
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers).not.to.have.property('access-control-allow-origin');
    const get = await request(app).get('/v1/products').set('Origin', 'https://evil.example.com');
    expect(get.status).to.equal(200);
    expect(get.headers).not.to.have.property('access-control-allow-origin');
  });
});

interface Answer {
  status: number;
  connection: string | undefined;
  body: unknown;
}

function send(port: number, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          body: text ? (JSON.parse(text) as unknown) : undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

interface Started {
  child: ChildProcess;
  /** The server's own process id: the child's, or under `unshare` its child's (PID 1 inside). */
  serverPid: number;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

const serverArgs = ['--import', 'tsx', '--conditions=slicekit-source', 'src/server.ts'];
// A PID namespace of its own, as a container gives: the server is its PID 1.
const asPid1 = ['--user', '--map-root-user', '--pid', '--fork', '--kill-child'];

/** Whether this machine lets an unprivileged test start a process in a PID namespace. */
function canUnshare(): boolean {
  const probe = spawnSync('unshare', [...asPid1, 'true'], { timeout: 10_000 });
  return probe.status === 0;
}

/**
 * `node src/server.ts` of the app, as the Dockerfile's exec-form CMD runs the build: the signal
 * reaches the server itself (and, with `pid1`, the server is PID 1 of its own namespace).
 */
async function startServer(env: NodeJS.ProcessEnv, pid1 = false): Promise<Started> {
  const port = await freePort();
  const [command, args] = pid1
    ? ['unshare', [...asPid1, process.execPath, ...serverArgs]]
    : [process.execPath, serverArgs];
  const child = spawn(command, args, {
    cwd: appDir,
    env: { ...process.env, LOG_LEVEL: 'info', PORT: String(port), ...env },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the server exited: ${output}`);
    return (await send(port, 'GET', '/health/live').catch(() => undefined))?.status === 200;
  }, 30_000);
  const serverPid = pid1
    ? Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim())
    : child.pid!;
  return { child, serverPid, port, output: () => output, exited };
}

async function waitingSlow(port: number): Promise<number> {
  return ((await send(port, 'GET', '/v1/slow-waiting')).body as { waiting: number }).waiting;
}

describe('a generated app process stopped by SIGTERM', function () {
  this.timeout(90_000);
  const db = useDatabase('sqlite');
  let started: Started | undefined;

  afterEach(() => {
    if (started?.child.exitCode === null) started.child.kill('SIGKILL');
    started = undefined;
  });

  for (const pid1 of [false, true]) {
    const as = pid1 ? 'as PID 1 of its own PID namespace (a container)' : 'as a plain process';
    it(`${as}: turns unready at once, keeps answering, finishes the request in flight, exits 0`, async function () {
      if (pid1 && !canUnshare()) this.skip();
      started = await startServer({ DATABASE_URL: db.url }, pid1);
      const { port } = started;
      expect((await send(port, 'GET', '/health/ready')).status).to.equal(200);
      const slow = send(port, 'GET', '/v1/slow');
      await eventually(async () => (await waitingSlow(port)) === 1, 10_000);

      process.kill(started.serverPid, 'SIGTERM');
      await eventually(async () => (await send(port, 'GET', '/health/ready')).status === 503, 5000);
      const ready = await send(port, 'GET', '/health/ready');
      expect(ready.body).to.include({
        code: 'health.unready',
        detail: 'the process is shutting down',
      });
      const during = await send(port, 'GET', '/v1/products');
      expect(during.status, 'a new request is answered during the drain').to.equal(200);
      expect(during.connection).to.equal('close');
      expect(started.child.exitCode, 'still running while a request is in flight').to.equal(null);

      await send(port, 'POST', '/v1/slow-release');
      expect(await slow).to.deep.include({ status: 200, body: { done: true } });
      expect(await started.exited, started.output()).to.equal(0);
      expect(started.output()).to.contain('shutting down: draining');
      if (pid1) expect(started.output()).to.contain('"pid":1,');
    });
  }

  it('with MIGRATE_ON_START=false on a database not migrated: serves unready, creates nothing, exits 0 after the grace time', async () => {
    const fresh = join(db.url, '..', 'fresh.sqlite');
    started = await startServer({
      DATABASE_URL: fresh,
      MIGRATE_ON_START: 'false',
      SHUTDOWN_GRACE_MS: '1000',
    });
    const { port } = started;
    const ready = await send(port, 'GET', '/health/ready');
    expect(ready.status).to.equal(503);
    expect((ready.body as { checks: { reason: string }[] }).checks[0]!.reason).to.match(
      /^not migrated/,
    );
    // A request that never finishes: the grace time ends the drain.
    const slow = send(port, 'GET', '/v1/slow').then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await eventually(async () => (await waitingSlow(port)) === 1, 10_000);
    process.kill(started.serverPid, 'SIGTERM');
    expect(await started.exited, started.output()).to.equal(0);
    expect(await slow).to.equal('ECONNRESET');
    expect(started.output()).to.contain('shutdown grace time passed');

    const file = new Database(fresh, { readonly: true });
    try {
      const tables = file.prepare("select name from sqlite_master where type = 'table'").all();
      expect(tables).to.deep.equal([]);
    } finally {
      file.close();
    }
  });
});
