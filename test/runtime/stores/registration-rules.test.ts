// The guard's registration rules hold for each shipped store's registration (PostgreSQL and MySQL
// on the app's Knex instance; Redis from a URL or a client the app owns): the store beats the
// default in either order, the first explicit store wins, and a losing registration neither runs
// its callback nor connects.
// Through each, a 1 MB binary response replays byte for byte.
import { randomBytes } from 'node:crypto';
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
import { createClient } from 'redis';
import { useDatabase, useRedis } from '../../support/services.js';

type Kind = 'postgres' | 'mysql' | 'redis';

/** Nothing listens on port 1: a registration that connected there would fail the start. */
const DEAD = {
  postgres: 'postgres://nobody@127.0.0.1:1/none',
  mysql: 'mysql://nobody@127.0.0.1:1/none',
  redis: 'redis://127.0.0.1:1',
};

/** The app's Knex instance on `url`, one per URL (a Knex instance never connects until asked). */
const knexes = new Map<string, Knex>();
function knexOn(url: string): Knex {
  const timeouts = { acquireTimeoutMs: 1000, connectTimeoutMs: 1000 };
  let knex = knexes.get(url);
  if (!knex) knexes.set(url, (knex = knexFactory(knexConfig(url, { timeouts }))));
  return knex;
}
after(() => Promise.all([...knexes.values()].map((knex) => knex.destroy())));

function register(kind: Kind, app: Express, connection: unknown, configure?: ConfigureIdempotency) {
  const timeouts = { operationTimeoutMs: 1000, connectTimeoutMs: 1000 };
  if (kind !== 'redis') {
    const knex = typeof connection === 'string' ? knexOn(connection) : (connection as Knex);
    addIdempotencyWithKnexStore(app, knex, configure);
  } else {
    addIdempotencyWithRedisStore(app, { connection: connection as string, ...timeouts }, configure);
  }
}

function appWithRoute(): { app: Express; runs: () => number } {
  const app = express();
  let runs = 0;
  app.post('/orders', requiredIdempotentKey(), (_req, res) => {
    runs++;
    res.status(201).json({ run: runs });
  });
  return { app, runs: () => runs };
}

for (const kind of ['postgres', 'mysql', 'redis'] as Kind[]) {
  describe(`registration rules of the ${kind} store`, () => {
    const db = kind === 'redis' ? undefined : useDatabase(kind);
    const redis = kind === 'redis' ? useRedis() : undefined;
    const url = () => db?.url ?? redis!.url;
    if (db) before(() => createIdempotencyKeysMigration().up(db.knex));
    // Each test its own prefix: keys never leak between tests on the shared table or Redis.
    let prefix = '';
    let counter = 0;
    beforeEach(() => {
      prefix = `${redis?.prefix ?? ''}rules${++counter}`;
    });
    const apps: Express[] = [];
    afterEach(async () => {
      await Promise.all(apps.splice(0).map((app) => closeIdempotency(app)));
    });
    const started = async (app: Express) => {
      apps.push(app);
      await prepareApp(app);
      return app;
    };
    const withPrefix =
      (then?: ConfigureIdempotency): ConfigureIdempotency =>
      (options) => {
        options.logger = silentLogger;
        options.cachePrefix = prefix;
        then?.(options);
      };

    it('wins over a default registered after it, which is a complete no-op', async () => {
      const { app, runs } = appWithRoute();
      let defaultRan = false;
      register(kind, app, url(), withPrefix());
      addIdempotentKey(app, () => (defaultRan = true));
      await started(app);
      await request(app).post('/orders').set('X-Idempotency-Key', 'after').expect(201);
      expect(defaultRan).to.equal(false);
      // The key lives in the shared store: a second app on it refuses the duplicate.
      const other = appWithRoute();
      register(kind, other.app, url(), withPrefix());
      await started(other.app);
      await request(other.app).post('/orders').set('X-Idempotency-Key', 'after').expect(409);
      expect(runs() + other.runs()).to.equal(1);
    });

    it('replaces a default registered before it; its own callback decides the options', async () => {
      const { app, runs } = appWithRoute();
      let defaultRan = false;
      addIdempotentKey(app, (options) => {
        defaultRan = true;
        options.conflictHandling = 'ConflictResponse';
      });
      register(
        kind,
        app,
        url(),
        withPrefix((options) => {
          options.conflictHandling = 'CachedResult';
        }),
      );
      await started(app);
      const first = await request(app).post('/orders').set('X-Idempotency-Key', 'before');
      const replay = await request(app).post('/orders').set('X-Idempotency-Key', 'before');
      expect([first.status, replay.status]).to.deep.equal([201, 201]);
      expect(replay.body).to.deep.equal(first.body);
      expect(runs()).to.equal(1);
      expect(defaultRan).to.equal(false);
    });

    it('keeps the first explicit store: a later one never runs its callback or connects', async () => {
      for (const loser of ['postgres', 'mysql', 'redis'] as Kind[]) {
        const { app } = appWithRoute();
        let loserRan = false;
        register(kind, app, url(), withPrefix());
        register(loser, app, DEAD[loser], () => (loserRan = true));
        await started(app);
        await request(app).post('/orders').set('X-Idempotency-Key', `first-${loser}`).expect(201);
        expect(loserRan, `the losing ${loser} callback ran`).to.equal(false);
      }
    });

    it('replays a 1 MB binary response byte for byte through the guard', async () => {
      const body = randomBytes(1024 * 1024 + 7);
      const app = express();
      let runs = 0;
      app.post('/files', requiredIdempotentKey(), (_req, res) => {
        runs++;
        res.status(200).type('application/octet-stream').send(body);
      });
      register(
        kind,
        app,
        url(),
        withPrefix((options) => {
          options.conflictHandling = 'CachedResult';
        }),
      );
      await started(app);
      const binary = (req: request.Test) =>
        req.buffer(true).parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      const first = await binary(request(app).post('/files').set('X-Idempotency-Key', 'big'));
      const replay = await binary(request(app).post('/files').set('X-Idempotency-Key', 'big'));
      expect(runs).to.equal(1);
      expect([first.status, replay.status]).to.deep.equal([200, 200]);
      expect(replay.headers['content-type']).to.equal('application/octet-stream');
      expect((replay.body as Buffer).equals(body), 'replayed bytes').to.equal(true);
    });

    it("takes the app's own Knex instance or client, and leaves it open when the guard closes", async () => {
      const own = kind === 'redis' ? createClient({ url: url() }) : knexFactory(knexConfig(url()));
      try {
        const { app, runs } = appWithRoute();
        register(kind, app, own, withPrefix());
        await started(app);
        await request(app).post('/orders').set('X-Idempotency-Key', 'own').expect(201);
        await request(app).post('/orders').set('X-Idempotency-Key', 'own').expect(409);
        expect(runs()).to.equal(1);
        await closeIdempotency(apps.pop()!);
        if ('isOpen' in own) expect(await own.ping()).to.equal('PONG');
        else expect(await own.raw('select 1 as n')).to.not.equal(undefined);
      } finally {
        if (!('isOpen' in own)) await own.destroy();
        else if (own.isOpen) await own.close();
      }
    });
  });
}

describe('the relational store registration', () => {
  it('refuses anything but a Knex instance', () => {
    expect(() => addIdempotencyWithKnexStore(express(), {} as Knex))
      .to.throw()
      .with.property('code', 'idempotency_store_invalid_settings');
  });
});
