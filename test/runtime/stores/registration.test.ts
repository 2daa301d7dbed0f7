// Registering the guard on the shipped distributed stores: the guard's precedence rules hold for
// them, a losing registration never queries, settings fail at registration, and the relational
// handle purges expired rows.
import { expect } from 'chai';
import express, { type Express } from 'express';
import knexFactory, { type Knex } from 'knex';
import request from 'supertest';
import {
  addIdempotentKey,
  closeIdempotency,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type ConfigureIdempotency,
} from '@slicekit/runtime/idempotency';
import { knexConfig } from '@slicekit/runtime/database';
import {
  addIdempotencyWithKnexStore,
  createIdempotencyKeysMigration,
} from '@slicekit/runtime/idempotency/knex';
import { addIdempotencyWithRedisStore } from '@slicekit/runtime/idempotency/redis';
import { useDatabase, useRedis } from '../../support/services.js';

/** Nothing listens on port 1: a store that tried to query there would fail the start. */
const DEAD_URL = {
  postgres: 'postgres://nobody@127.0.0.1:1/none',
  mysql: 'mysql://nobody@127.0.0.1:1/none',
};
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

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`registering the guard on the ${dialect} store, on the app's Knex`, () => {
    const db = useDatabase(dialect);
    const apps: Express[] = [];
    const deadKnexes: Knex[] = [];
    const migrated = (tableName?: string) =>
      createIdempotencyKeysMigration({ tableName }).up(db.knex);
    afterEach(async () => {
      await Promise.all(apps.splice(0).map((app) => closeIdempotency(app)));
      await Promise.all(deadKnexes.splice(0).map((knex) => knex.destroy()));
    });

    it('guards routes with keys shared through the database, leaving the Knex instance open: 201, then 409', async () => {
      await migrated();
      const { app, runs } = appWithRoute();
      addIdempotencyWithKnexStore(app, db.knex, quiet);
      await prepareApp(app);
      await request(app).post('/orders').set('X-Idempotency-Key', `${dialect}-1`).expect(201);
      await request(app).post('/orders').set('X-Idempotency-Key', `${dialect}-1`).expect(409);
      await closeIdempotency(app);
      expect(runs()).to.equal(1);
      const [row] = await db.knex('slicekit_idempotency_keys').count({ n: '*' });
      expect(Number(row?.n)).to.equal(1);
    });

    it('wins over a default registration made before it, whose callback never runs', async () => {
      await migrated('winner_keys');
      const { app } = appWithRoute();
      apps.push(app);
      let defaultCallbackRan = false;
      addIdempotentKey(app, () => (defaultCallbackRan = true));
      addIdempotencyWithKnexStore(app, { knex: db.knex, tableName: 'winner_keys' }, quiet);
      await prepareApp(app);
      await request(app).post('/orders').set('X-Idempotency-Key', 'wins').expect(201);
      expect(defaultCallbackRan).to.equal(false);
      const [row] = await db.knex('winner_keys').count({ n: '*' });
      expect(Number(row?.n)).to.equal(1);
    });

    it('loses to an earlier explicit store without running its callback or querying', async () => {
      await migrated();
      const { app } = appWithRoute();
      apps.push(app);
      let loserRan = false;
      const dead = knexFactory(knexConfig(DEAD_URL[dialect]));
      deadKnexes.push(dead);
      addIdempotencyWithKnexStore(app, db.knex, quiet);
      const loser = addIdempotencyWithKnexStore(app, dead, () => (loserRan = true));
      await prepareApp(app);
      expect(loserRan).to.equal(false);
      const error = await loser.purgeExpired().catch((caught: unknown) => caught);
      expect(error).to.have.property('code', 'idempotency_store_not_started');
    });

    it('refuses an unusable table name at registration', () => {
      const { app } = appWithRoute();
      expect(() =>
        addIdempotencyWithKnexStore(app, { knex: db.knex, tableName: 'keys; drop table x' }),
      )
        .to.throw()
        .with.property('code', 'idempotency_store_invalid_settings');
    });

    it('purges expired rows through the registration handle', async () => {
      await migrated('purge_keys');
      const { app } = appWithRoute();
      apps.push(app);
      const handle = addIdempotencyWithKnexStore(
        app,
        { knex: db.knex, tableName: 'purge_keys' },
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
    });
  });
}

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
