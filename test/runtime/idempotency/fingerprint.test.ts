// The request fingerprint: a key reused for a different request answers 422 in both conflict
// modes, in flight or completed, while a retry of the same request is still a duplicate.
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import {
  addIdempotentKeyWithStore,
  fingerprintRequest,
  OptionsValidationError,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type IdempotencyOptions,
  type IdempotentConflictHandling,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { counting, guardedApp, type Runs } from './support/app.js';

const KEY = 'X-Idempotency-Key';

function routes(app: Express, runs: Runs): void {
  app.post('/orders', requiredIdempotentKey(), counting(runs, 'orders'));
  app.post('/orders/:id/pay', requiredIdempotentKey(), counting(runs, 'pay'));
  app.post('/slow', requiredIdempotentKey(), (_req, res) => {
    const run = runs.hit('slow');
    setTimeout(() => res.status(201).json({ run }), 150);
  });
  app.post('/text', express.text(), requiredIdempotentKey(), counting(runs, 'text'));
  app.post(
    '/raw',
    express.raw({ type: 'application/octet-stream' }),
    requiredIdempotentKey(),
    counting(runs, 'raw'),
  );
}

const appIn = (mode: IdempotentConflictHandling, configure?: (o: IdempotencyOptions) => void) =>
  guardedApp(routes, (o) => {
    o.conflictHandling = mode;
    configure?.(o);
  });

describe('idempotency guard: request fingerprint', () => {
  for (const mode of ['ConflictResponse', 'CachedResult'] as const) {
    describe(mode, () => {
      it('answers 422 problem+json to a key reused with another body once the first completed', async () => {
        const { app, runs } = await appIn(mode);
        await request(app).post('/orders').set(KEY, 'k').send({ amount: 100 }).expect(201);
        const reused = await request(app).post('/orders').set(KEY, 'k').send({ amount: 999 });
        expect(reused.status).to.equal(422);
        expect(reused.headers['content-type']).to.match(/^application\/problem\+json/);
        expect(reused.body).to.include({
          status: 422,
          title: 'Unprocessable Content',
          state: 'completed',
          header: KEY,
        });
        expect(reused.headers['idempotent-replayed']).to.equal(undefined);
        expect(runs.of('orders')).to.equal(1);
      });

      it('answers 422 to a key reused with another body while the first is in flight', async () => {
        const { app, runs } = await appIn(mode);
        const first = request(app)
          .post('/slow')
          .set(KEY, 'k')
          .send({ amount: 100 })
          .then((r) => r);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const reused = await request(app).post('/slow').set(KEY, 'k').send({ amount: 999 });
        expect(reused.status).to.equal(422);
        expect(reused.body).to.include({ status: 422, state: 'in-flight' });
        expect((await first).status).to.equal(201);
        expect(runs.of('slow')).to.equal(1);
      });

      it('treats the same body with its members in another order as the same request', async () => {
        const { app, runs } = await appIn(mode);
        await request(app)
          .post('/orders')
          .set(KEY, 'k')
          .send({ sku: 'A', lines: [{ q: 1, p: 2 }] })
          .expect(201);
        const again = await request(app)
          .post('/orders')
          .set(KEY, 'k')
          .set('Content-Type', 'application/json')
          .send('{"lines":[{"p":2,"q":1}],"sku":"A"}');
        expect(again.status).to.equal(mode === 'CachedResult' ? 201 : 409);
        expect(runs.of('orders')).to.equal(1);
      });
    });
  }

  it('tells requests to another path parameter or query string apart', async () => {
    const { app, runs } = await appIn('CachedResult');
    await request(app).post('/orders/1/pay').set(KEY, 'k').send({}).expect(201);
    await request(app).post('/orders/2/pay').set(KEY, 'k').send({}).expect(422);
    await request(app).post('/orders/1/pay?express=1').set(KEY, 'k').send({}).expect(422);
    await request(app).post('/orders/1/pay').set(KEY, 'k').send({}).expect(201);
    expect(runs.of('pay')).to.equal(1);
  });

  it('fingerprints text and raw bodies as they were sent', async () => {
    const { app, runs } = await appIn('CachedResult');
    const text = (body: string) =>
      request(app).post('/text').set(KEY, 't').set('Content-Type', 'text/plain').send(body);
    expect((await text('one')).status).to.equal(201);
    expect((await text('one')).status).to.equal(201);
    expect((await text('two')).status).to.equal(422);
    const raw = (body: Buffer) =>
      request(app)
        .post('/raw')
        .set(KEY, 'r')
        .set('Content-Type', 'application/octet-stream')
        .send(body);
    expect((await raw(Buffer.from([0, 1, 255]))).status).to.equal(201);
    expect((await raw(Buffer.from([0, 1, 255]))).status).to.equal(201);
    expect((await raw(Buffer.from([0, 1, 254]))).status).to.equal(422);
    expect([runs.of('text'), runs.of('raw')]).to.deep.equal([1, 1]);
  });

  it('leaves out body fields named in ignoreBodyFields, and adds what extra names', async () => {
    const { app, runs } = await appIn('CachedResult', (o) => {
      o.requestFingerprint = (req) =>
        fingerprintRequest(req, { ignoreBodyFields: ['sentAt'], extra: req.get('Api-Version') });
    });
    const send = (sentAt: string, version = '1') =>
      request(app)
        .post('/orders')
        .set(KEY, 'k')
        .set('Api-Version', version)
        .send({ amount: 1, sentAt });
    expect((await send('10:00')).status).to.equal(201);
    const retry = await send('10:01');
    expect(retry.status).to.equal(201);
    expect(retry.headers['idempotent-replayed']).to.equal('true');
    expect((await send('10:02', '2')).status).to.equal(422);
    expect(runs.of('orders')).to.equal(1);
  });

  it('compares nothing when requestFingerprint is null', async () => {
    const { app, runs } = await appIn('CachedResult', (o) => (o.requestFingerprint = null));
    await request(app).post('/orders').set(KEY, 'k').send({ amount: 100 }).expect(201);
    const replay = await request(app).post('/orders').set(KEY, 'k').send({ amount: 999 });
    expect(replay.status).to.equal(201);
    expect(replay.headers['idempotent-replayed']).to.equal('true');
    expect(runs.of('orders')).to.equal(1);
  });

  it('does not answer 422 for an entry stored without a fingerprint (written before the upgrade)', async () => {
    const app = express();
    app.use(express.json());
    const store = new MemoryIdempotencyStore({
      expirationMs: 60_000,
      inFlightReservationTimeoutMs: 30_000,
      cachePrefix: 'idem',
    });
    let runs = 0;
    addIdempotentKeyWithStore(app, store, (o) => (o.logger = silentLogger));
    app.post('/orders', requiredIdempotentKey(), (_req, res) => {
      runs += 1;
      res.status(201).json({ runs });
    });
    await prepareApp(app);
    // As an entry from before the upgrade: the store hands back no stored fingerprint.
    const check = store.isKeyProcessed.bind(store);
    store.isKeyProcessed = async (info) => {
      const result = await check(info);
      return result.processed ? { ...result, fingerprint: null } : result;
    };
    await request(app).post('/orders').set(KEY, 'k').send({ amount: 1 }).expect(201);
    await request(app).post('/orders').set(KEY, 'k').send({ amount: 2 }).expect(409);
    expect(runs).to.equal(1);
  });

  it('refuses a requestFingerprint that is neither a function nor null', async () => {
    const error = await guardedApp(routes, (o) => {
      (o as { requestFingerprint: unknown }).requestFingerprint = 'sha256';
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(OptionsValidationError);
    expect((error as OptionsValidationError).failures).to.deep.equal([
      'requestFingerprint must be null or a function',
    ]);
  });
});
