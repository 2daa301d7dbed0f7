// The guard's behaviour over HTTP on every shipped store (memory, PostgreSQL, MySQL, Redis): what
// depends on what a store keeps, checked end to end rather than through the store interface only.
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import {
  addIdempotentKeyWithStore,
  closeIdempotency,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type IdempotencyKeyStoreFactory,
  type IdempotentConflictHandling,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '../../../runtime/src/idempotency/stores/memory.js';
import { MySqlIdempotencyStore } from '../../../runtime/src/idempotency/stores/mysql-store.js';
import { PostgresIdempotencyStore } from '../../../runtime/src/idempotency/stores/postgres-store.js';
import { RedisIdempotencyStore } from '../../../runtime/src/idempotency/stores/redis-store.js';
import { useDatabase, useRedis } from '../../support/services.js';

const KEY = 'X-Idempotency-Key';

type StoreMaker = () => IdempotencyKeyStoreFactory;

/** Declares the cases for one store; `maker` is read inside hooks and tests only. */
function guardCases(maker: StoreMaker): void {
  const apps: Express[] = [];
  let runs = 0;

  async function appIn(mode: IdempotentConflictHandling): Promise<Express> {
    const app = express();
    app.use(express.json());
    addIdempotentKeyWithStore(app, maker(), (o) => {
      o.logger = silentLogger;
      o.conflictHandling = mode;
      // Each app its own key space in a shared database or Redis.
      o.cachePrefix = `guard-${Math.random().toString(36).slice(2)}`;
    });
    app.post('/orders', requiredIdempotentKey(), (req, res) => {
      runs += 1;
      const delay = Number(req.body?.delayMs ?? 0);
      setTimeout(() => res.status(201).json({ amount: req.body?.amount, run: runs }), delay);
    });
    await prepareApp(app);
    apps.push(app);
    return app;
  }

  beforeEach(() => (runs = 0));
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => closeIdempotency(app)));
  });

  for (const mode of ['ConflictResponse', 'CachedResult'] as const) {
    it(`answers 422 to a key reused with another body, completed or in flight (${mode})`, async () => {
      const app = await appIn(mode);
      await request(app).post('/orders').set(KEY, 'done').send({ amount: 100 }).expect(201);
      const reused = await request(app).post('/orders').set(KEY, 'done').send({ amount: 999 });
      expect(reused.status).to.equal(422);
      expect(reused.body).to.include({ status: 422, state: 'completed' });

      const slow = request(app)
        .post('/orders')
        .set(KEY, 'busy')
        .send({ amount: 100, delayMs: 300 })
        .then((r) => r);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const early = await request(app)
        .post('/orders')
        .set(KEY, 'busy')
        .send({ amount: 999, delayMs: 300 });
      expect(early.status).to.equal(422);
      expect(early.body).to.include({ status: 422, state: 'in-flight' });
      expect((await slow).status).to.equal(201);

      const same = await request(app).post('/orders').set(KEY, 'done').send({ amount: 100 });
      expect(same.status).to.equal(mode === 'CachedResult' ? 201 : 409);
      if (mode === 'CachedResult') expect(same.body).to.deep.equal({ amount: 100, run: 1 });
      expect(runs).to.equal(2);
    });
  }
}

describe('the guard on every store', function () {
  this.timeout(30_000);

  describe('memory', () => {
    guardCases(() => (timings) => new MemoryIdempotencyStore(timings));
  });

  describe('PostgreSQL', () => {
    const db = useDatabase('postgres');
    guardCases(
      () => (timings) => new PostgresIdempotencyStore(db.url, { createTable: true }, timings),
    );
  });

  describe('MySQL', () => {
    const db = useDatabase('mysql');
    guardCases(
      () => (timings) => new MySqlIdempotencyStore(db.url, { createTable: true }, timings),
    );
  });

  describe('Redis', () => {
    const redis = useRedis();
    guardCases(() => (timings) => {
      const prefixed = { ...timings, cachePrefix: `${redis.prefix}${timings.cachePrefix}` };
      return new RedisIdempotencyStore(redis.url, {}, prefixed);
    });
  });
});
