// Registering the guard on the shipped distributed stores: the guard's precedence rules hold for
// them, a losing registration never opens a connection, settings fail at registration, and the
// relational handle and standalone function purge expired rows.
import { expect } from 'chai';
import express, { type Express } from 'express';
import mysql from 'mysql2/promise';
import request from 'supertest';
import {
  addIdempotentKey,
  closeIdempotency,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type ConfigureIdempotency,
} from '@slicekit/runtime/idempotency';
import {
  addIdempotencyWithMySqlStore,
  createIdempotencyKeysMigration as mysqlMigration,
} from '@slicekit/runtime/idempotency/mysql';
import {
  addIdempotencyWithPostgresStore,
  purgeExpired,
} from '@slicekit/runtime/idempotency/postgres';
import { addIdempotencyWithRedisStore } from '@slicekit/runtime/idempotency/redis';
import { useDatabase, useRedis } from '../../support/services.js';

/** Nothing listens on port 1: a store that tried to connect there would fail the start. */
const DEAD_POSTGRES = 'postgres://nobody@127.0.0.1:1/none';
const quiet: ConfigureIdempotency = (options) => {
  options.logger = silentLogger;
};

function appWithRoute(): { app: Express; runs: () => number } {
  const app = express();
  let runs = 0;
  app.post('/orders', requiredIdempotentKey(), (_req, res) => {
    runs++;
    res
      .status(201)
      .type('application/octet-stream')
      .send(Buffer.from([0, 255, 10, runs]));
  });
  return { app, runs: () => runs };
}

describe('registering the guard on a PostgreSQL store', () => {
  const db = useDatabase('postgres');
  const apps: Express[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => closeIdempotency(app)));
  });

  it('guards routes with a store shared through the database: 201, then 409', async () => {
    const { app, runs } = appWithRoute();
    apps.push(app);
    addIdempotencyWithPostgresStore(app, { connection: db.url, createTable: true }, quiet);
    await prepareApp(app);
    await request(app).post('/orders').set('X-Idempotency-Key', 'pg-1').expect(201);
    await request(app).post('/orders').set('X-Idempotency-Key', 'pg-1').expect(409);
    expect(runs()).to.equal(1);
    expect(await db.knex('slicekit_idempotency_keys').count({ n: '*' })).to.deep.equal([
      { n: '1' },
    ]);
  });

  it('wins over a default registration made before it, whose callback never runs', async () => {
    const { app } = appWithRoute();
    apps.push(app);
    let defaultCallbackRan = false;
    addIdempotentKey(app, () => (defaultCallbackRan = true));
    addIdempotencyWithPostgresStore(
      app,
      { connection: db.url, tableName: 'winner_keys', createTable: true },
      quiet,
    );
    await prepareApp(app);
    await request(app).post('/orders').set('X-Idempotency-Key', 'wins').expect(201);
    expect(defaultCallbackRan).to.equal(false);
    expect(await db.knex('winner_keys').count({ n: '*' })).to.deep.equal([{ n: '1' }]);
  });

  it('loses to an earlier explicit store without running its callback or connecting', async () => {
    const { app } = appWithRoute();
    apps.push(app);
    let loserRan = false;
    addIdempotencyWithPostgresStore(app, { connection: db.url, createTable: true }, quiet);
    const loser = addIdempotencyWithPostgresStore(
      app,
      { connection: DEAD_POSTGRES, createTable: true },
      () => (loserRan = true),
    );
    await prepareApp(app);
    expect(loserRan).to.equal(false);
    const error = await loser.purgeExpired().catch((caught: unknown) => caught);
    expect(error).to.have.property('code', 'idempotency_store_not_started');
  });

  it('refuses an unusable table name at registration', () => {
    const { app } = appWithRoute();
    expect(() =>
      addIdempotencyWithPostgresStore(app, { connection: db.url, tableName: 'keys; drop table x' }),
    )
      .to.throw()
      .with.property('code', 'idempotency_store_invalid_settings');
  });

  it('purges expired rows through the registration handle and the standalone function', async () => {
    const { app } = appWithRoute();
    apps.push(app);
    const handle = addIdempotencyWithPostgresStore(
      app,
      { connection: db.url, tableName: 'purge_keys', createTable: true },
      (options) => {
        options.logger = silentLogger;
        options.expiration = 100;
      },
    );
    await prepareApp(app);
    for (const key of ['a', 'b', 'c']) {
      await request(app).post('/orders').set('X-Idempotency-Key', key).expect(201);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await handle.purgeExpired()).to.equal(3);
    await request(app).post('/orders').set('X-Idempotency-Key', 'd').expect(201);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await purgeExpired(db.url, { tableName: 'purge_keys' })).to.equal(1);
  });
});

describe('registering the guard on a MySQL store with the app’s own pool', () => {
  let pool: mysql.Pool | undefined;
  after(() => pool?.end());
  const db = useDatabase('mysql');

  it('uses the pool, leaves it open when the guard closes, and works on a migrated table', async () => {
    await mysqlMigration().up(db.knex);
    pool = mysql.createPool({ uri: db.url, connectionLimit: 3 });
    const { app, runs } = appWithRoute();
    addIdempotencyWithMySqlStore(app, pool, quiet);
    await prepareApp(app);
    await request(app).post('/orders').set('X-Idempotency-Key', 'my-1').expect(201);
    await request(app).post('/orders').set('X-Idempotency-Key', 'my-1').expect(409);
    await closeIdempotency(app);
    expect(runs()).to.equal(1);
    const [rows] = await pool.query('select count(*) as n from slicekit_idempotency_keys');
    expect(rows).to.deep.equal([{ n: 1 }]);
  });
});

describe('registering the guard on a Redis store', () => {
  const redis = useRedis();

  it('replays the first response byte for byte in CachedResult mode', async () => {
    const { app, runs } = appWithRoute();
    addIdempotencyWithRedisStore(app, redis.url, (options) => {
      options.logger = silentLogger;
      options.cachePrefix = `${redis.prefix}registration`;
      options.conflictHandling = 'CachedResult';
    });
    try {
      await prepareApp(app);
      const first = await request(app).post('/orders').set('X-Idempotency-Key', 'r-1').expect(201);
      const replay = await request(app).post('/orders').set('X-Idempotency-Key', 'r-1').expect(201);
      expect(runs()).to.equal(1);
      expect(replay.headers['content-type']).to.equal('application/octet-stream');
      expect(Buffer.compare(replay.body as Buffer, first.body as Buffer)).to.equal(0);
      expect(replay.body).to.deep.equal(Buffer.from([0, 255, 10, 1]));
    } finally {
      await closeIdempotency(app);
    }
  });

  it('fails the app start, without retrying forever, when Redis does not answer', async () => {
    const { app } = appWithRoute();
    addIdempotencyWithRedisStore(
      app,
      { connection: 'redis://127.0.0.1:1', operationTimeoutMs: 300 },
      quiet,
    );
    const error = await prepareApp(app).catch((caught: unknown) => caught);
    expect(error).to.have.property('code', 'idempotency_store_timeout');
  });
});
