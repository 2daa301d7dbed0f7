// Where a generated app keeps its idempotency keys: on PostgreSQL and MySQL in its own database,
// so a create retried against a second instance of the app runs once; in Redis when
// IDEMPOTENCY_STORE_URL names one; in process memory on SQLite. Start-up says which in one line,
// and an IDEMPOTENCY_STORE_URL the app cannot use stops it at start.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Express } from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import { closeIdempotency } from '@slicekit/runtime/idempotency';
import { repoRoot, scratchFolder } from '../e2e/support/workspace.js';
import { useDatabase, useRedis } from '../support/services.js';
import { generateApp, importApp } from './support/generated-app.js';

interface AppModules {
  createApp(deps: { knex: Knex; logger: unknown; auth?: object }): Promise<Express>;
  createKnex(url: string): Knex;
  migrate(knex: Knex, logger: unknown): Promise<unknown>;
  createLogger(level: string, destination?: { write(line: string): void }): unknown;
  idempotencyHealthCheck(
    app: Express,
  ): { name: string; check(signal: AbortSignal): Promise<void> } | undefined;
}

let scratch: ReturnType<typeof scratchFolder>;
let appDir: string;

/** The app's modules from `dir`, with `env` set while config.ts reads it (once, on import). */
function loadApp(dir: string, env: Record<string, string | undefined> = {}): Promise<AppModules> {
  const files = ['src/app.ts', 'src/db.ts', 'src/logger.ts', 'src/idempotency.ts'];
  return importApp<AppModules>(dir, files, env);
}

before(async function () {
  this.timeout(60_000);
  scratch = scratchFolder('app-idempotency-store');
  appDir = join(scratch.path, 'desk');
  // Tickets: a create that requires an idempotency key.
  const specFile = join(repoRoot, 'test/e2e/support/ticket.yaml');
  await generateApp(appDir, { name: 'desk', specFile });
});

after(() => scratch?.remove());

/** Two instances of the app (two Knex instances) on `url`, and what each logged at start. */
async function twoInstances(modules: AppModules, url: string) {
  const knexes = [modules.createKnex(url), modules.createKnex(url)];
  await modules.migrate(knexes[0]!, modules.createLogger('silent'));
  const logs: string[] = [];
  const logger = modules.createLogger('info', { write: (line: string) => logs.push(line) });
  const apps: Express[] = [];
  for (const knex of knexes) apps.push(await modules.createApp({ knex, logger, auth: {} }));
  return {
    apps,
    knex: knexes[0]!,
    /** Start-up lines about the idempotency store. */
    storeLines: () =>
      logs
        .map((line) => JSON.parse(line) as { store?: string; host?: string; msg: string })
        .filter((line) => line.store !== undefined)
        .map(({ store, host, msg }) => (host ? { store, host, msg } : { store, msg })),
    async close() {
      for (const app of apps) await closeIdempotency(app);
      await Promise.all(knexes.map((knex) => knex.destroy()));
    },
  };
}

/** Rows of the tickets table (PostgreSQL counts as text). */
async function tickets(knex: Knex): Promise<number> {
  const [row] = await knex('tickets').count({ n: '*' });
  return Number(row!.n);
}

/** A create sent to the first instance, then retried with the same key on the second. */
async function createAndRetry(apps: Express[]) {
  const key = randomUUID();
  const send = (app: Express) =>
    request(app).post('/v1/tickets').set('X-Idempotency-Key', key).send({ title: 'Printer' });
  const first = await send(apps[0]!);
  const retry = await send(apps[1]!);
  expect(first.status, first.text).to.equal(201);
  expect(retry.status, retry.text).to.equal(201);
  expect(retry.body).to.deep.equal(first.body);
}

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`a generated app on ${dialect} keeps idempotency keys in its own database`, function () {
    this.timeout(60_000);
    const db = useDatabase(dialect);

    it('runs a create retried on another instance once, and says so in one start-up line', async () => {
      const modules = await loadApp(appDir);
      const instances = await twoInstances(modules, db.url);
      try {
        // The database's own readiness check covers the keys: no check of the store's own.
        expect(modules.idempotencyHealthCheck(instances.apps[0]!)).to.equal(undefined);
        await createAndRetry(instances.apps);
        expect(await tickets(instances.knex)).to.equal(1);
        const label = dialect === 'postgres' ? 'PostgreSQL' : 'MySQL';
        // One line per instance, naming the store; no memory-store warning.
        expect(instances.storeLines()).to.deep.equal(
          [1, 2].map(() => ({
            store: 'database',
            msg: `idempotency keys are kept in the app's ${label} database`,
          })),
        );
      } finally {
        await instances.close();
      }
    });
  });
}

describe('a generated app on SQLite keeps idempotency keys in process memory', function () {
  this.timeout(60_000);

  it('says so in the memory store warning, its one start-up line about the store', async () => {
    const instances = await twoInstances(
      await loadApp(appDir),
      join(scratch.path, 'memory.sqlite'),
    );
    try {
      const lines = instances.storeLines();
      expect(lines.map((line) => line.store)).to.deep.equal(['memory', 'memory']);
      expect(lines[0]!.msg).to.contain('process memory');
    } finally {
      await instances.close();
    }
  });
});

describe('a generated app with IDEMPOTENCY_STORE_URL=redis://...', function () {
  this.timeout(60_000);
  let modules: AppModules;
  // Before useRedis's own hooks, so it runs while the client is still connected.
  after(async () => {
    const keys = await redis.client.keys(`${redis.prefix}*`);
    if (keys.length > 0) await redis.client.del(keys);
  });
  const redis = useRedis();

  before(async () => {
    // A copy of the app whose keys carry this suite's prefix, so they can be deleted after.
    const dir = join(scratch.path, 'desk-redis');
    cpSync(appDir, dir, { recursive: true });
    const file = join(dir, 'src/idempotency.ts');
    const source = readFileSync(file, 'utf8');
    const prefixed = source.replace(
      "options.conflictHandling = 'CachedResult';",
      `$&\n    options.cachePrefix = '${redis.prefix}idem';`,
    );
    expect(prefixed).not.to.equal(source);
    writeFileSync(file, prefixed);
    modules = await loadApp(dir, { IDEMPOTENCY_STORE_URL: redis.url });
  });

  it('shares keys between instances through Redis, named at start without a password', async () => {
    const instances = await twoInstances(modules, join(scratch.path, 'redis.sqlite'));
    try {
      await createAndRetry(instances.apps);
      expect(await tickets(instances.knex)).to.equal(1);
      const health = modules.idempotencyHealthCheck(instances.apps[0]!);
      expect(health?.name).to.equal('idempotency');
      await health!.check(AbortSignal.timeout(5000));
      const { host } = new URL(redis.url);
      expect(instances.storeLines()).to.deep.equal(
        [1, 2].map(() => ({
          store: 'redis',
          host,
          msg: `idempotency keys are kept in Redis at ${host}`,
        })),
      );
    } finally {
      await instances.close();
    }
  });
});

describe('a generated app with an IDEMPOTENCY_STORE_URL it cannot use', function () {
  this.timeout(60_000);

  it('stops at start naming the variable, without the password', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--conditions=slicekit-source', 'src/server.ts'],
      {
        cwd: appDir,
        env: {
          ...process.env,
          IDEMPOTENCY_STORE_URL: 'memcached://admin:s3cret@cache:11211',
          DATABASE_URL: join(scratch.path, 'unused.sqlite'),
        },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(result.status, result.stderr).to.equal(1);
    expect(result.stderr).to.contain(
      'cannot start: invalid setting IDEMPOTENCY_STORE_URL="memcached://***@cache:11211": expected a redis:// or rediss:// URL',
    );
    expect(result.stderr).not.to.contain('s3cret');
  });
});
