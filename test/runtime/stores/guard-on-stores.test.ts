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
  standardIdempotencyKeyHeader,
  type IdempotencyKeyStoreFactory,
  type IdempotencyOptions,
  type IdempotentConflictHandling,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { KnexIdempotencyStore } from '@slicekit/runtime/internal';
import { idempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';
import { RedisIdempotencyStore } from '@slicekit/runtime/internal';
import { useDatabase, useRedis } from '../../support/services.js';

const KEY = 'X-Idempotency-Key';

type StoreMaker = () => IdempotencyKeyStoreFactory;

/** Declares the cases for one store; `maker` is read inside hooks and tests only. */
function guardCases(maker: StoreMaker): void {
  const apps: Express[] = [];
  let runs = 0;

  async function appIn(
    mode: IdempotentConflictHandling,
    more?: (options: IdempotencyOptions) => void,
    prepared = true,
  ): Promise<Express> {
    const app = express();
    app.use(express.json());
    // Authentication before the guard, as start-up requires: the scope is the caller.
    app.use((req, _res, next) => {
      const id = req.get('x-user');
      if (id) req.user = { id };
      next();
    });
    addIdempotentKeyWithStore(app, maker(), (o) => {
      o.logger = silentLogger;
      o.conflictHandling = mode;
      // Each app its own key space in a shared database or Redis.
      o.cachePrefix = `guard-${Math.random().toString(36).slice(2)}`;
      more?.(o);
    });
    app.post('/orders', requiredIdempotentKey(), (req, res) => {
      runs += 1;
      const delay = Number(req.body?.delayMs ?? 0);
      const run = runs;
      setTimeout(() => {
        res
          .status(201)
          .location(`/orders/${run}`)
          .set('ETag', `W/"caf\u00e9-${run}"`)
          .set('Link', ['</orders>; rel="collection"', '</terms>; rel="terms-of-service"'])
          .set('X-Run', String(run))
          .json({ amount: req.body?.amount, run });
      }, delay);
    });
    if (prepared) await prepareApp(app);
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
      expect(reused.body).to.include({
        type: 'urn:slicekit:problem:idempotency-key-reused',
        status: 422,
        state: 'completed',
      });

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

  it('takes "key" on the standard Idempotency-Key header as the same key as key', async () => {
    const app = await appIn('CachedResult', standardIdempotencyKeyHeader);
    const send = (value: string) =>
      request(app).post('/orders').set('Idempotency-Key', value).send({ amount: 3 });
    expect((await send('"order-3"')).status).to.equal(201);
    const again = await send('order-3');
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect((await send('"order-3";x=1')).status).to.equal(400);
    expect(runs).to.equal(1);
  });

  it('keys by the characters sent: a CJK key replays, another CJK key is new', async () => {
    const app = await appIn('CachedResult', (o) => (o.idempotencyKeyPattern = '^[^\\s]+$'));
    const send = (key: string) =>
      request(app)
        .post('/orders')
        .set(KEY, Buffer.from(key, 'utf8').toString('latin1'))
        .send({ amount: 9 });
    expect((await send('注文-😀-1')).body).to.deep.equal({ amount: 9, run: 1 });
    const again = await send('注文-😀-1');
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect((await send('注文-😀-2')).body).to.deep.equal({ amount: 9, run: 2 });
    expect((await send('注'.repeat(86))).status).to.equal(400);
    expect(runs).to.equal(2);
  });

  it('guards from the first request an app that was never prepared (it prepares itself)', async () => {
    const app = await appIn('ConflictResponse', undefined, false);
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () =>
        request(app)
          .post('/orders')
          .set(KEY, 'first')
          .send({ amount: 1, delayMs: 50 })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).to.have.length(1);
    expect(statuses.filter((s) => s === 409)).to.have.length(9);
    expect(runs).to.equal(1);
  });

  it('keeps callers apart: one key from two users runs twice, and each replay is the caller’s own', async () => {
    const app = await appIn('CachedResult');
    const as = (user: string) =>
      request(app).post('/orders').set(KEY, 'shared').set('X-User', user).send({ amount: 7 });
    expect((await as('alice')).body).to.deep.equal({ amount: 7, run: 1 });
    expect((await as('bob')).body).to.deep.equal({ amount: 7, run: 2 });
    expect((await as('alice')).body).to.deep.equal({ amount: 7, run: 1 });
    expect((await as('bob')).body).to.deep.equal({ amount: 7, run: 2 });
    expect(runs).to.equal(2);
  });

  it('replays the recorded headers byte for byte: a replayed 201 keeps its Location', async () => {
    const app = await appIn('CachedResult');
    const first = await request(app).post('/orders').set(KEY, 'h').send({ amount: 5 }).expect(201);
    const again = await request(app).post('/orders').set(KEY, 'h').send({ amount: 5 }).expect(201);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    for (const name of ['location', 'etag', 'link']) {
      expect(again.headers[name], name).to.deep.equal(first.headers[name]);
    }
    expect(again.headers.location).to.equal('/orders/1');
    // Node sent the handler's é as UTF-8 (the header went out with a UTF-8 string body); the
    // replay sends those same two bytes.
    expect(Buffer.from(again.headers.etag as string, 'latin1')).to.deep.equal(
      Buffer.from('W/"caf\u00e9-1"', 'utf8'),
    );
    expect(again.headers['x-run']).to.equal(undefined);
    expect(runs).to.equal(1);
  });
}

describe('the guard on every store', function () {
  this.timeout(30_000);

  describe('memory', () => {
    guardCases(() => (timings) => new MemoryIdempotencyStore(timings));
  });

  for (const dialect of ['postgres', 'mysql'] as const) {
    describe(dialect === 'postgres' ? 'PostgreSQL' : 'MySQL', () => {
      const db = useDatabase(dialect);
      before(() => idempotencyKeysMigration().up(db.knex));
      guardCases(() => (timings) => new KnexIdempotencyStore(db.knex, {}, timings));
    });
  }

  describe('Redis', () => {
    const redis = useRedis();
    guardCases(() => (timings) => {
      const prefixed = { ...timings, cachePrefix: `${redis.prefix}${timings.cachePrefix}` };
      return new RedisIdempotencyStore(redis.url, {}, prefixed);
    });
  });
});
