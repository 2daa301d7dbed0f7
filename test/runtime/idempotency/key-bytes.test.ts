// Keys as characters: a key past ASCII is read as the UTF-8 it was sent in (Node hands header
// bytes over as latin1), and maxIdempotencyKeyLength counts those bytes.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  addIdempotentKeyWithStore,
  prepareApp,
  requiredIdempotentKey,
  type IdempotencyOptions,
  type IdempotentKeyInfo,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { recordingLogger } from './support/app.js';

const KEY = 'X-Idempotency-Key';

/** What a client puts on the wire for `key`: its UTF-8 bytes (Node's client writes latin1). */
const wire = (key: string) => Buffer.from(key, 'utf8').toString('latin1');

async function spiedApp(configure: (o: IdempotencyOptions) => void = () => {}) {
  const app = express();
  const seen: IdempotentKeyInfo[] = [];
  const logger = recordingLogger();
  const store = new MemoryIdempotencyStore({
    expirationMs: 60_000,
    inFlightReservationTimeoutMs: 30_000,
    cachePrefix: 'idem',
  });
  const check = store.isKeyProcessed.bind(store);
  store.isKeyProcessed = (info) => {
    seen.push(info);
    return check(info);
  };
  addIdempotentKeyWithStore(app, store, (o) => {
    o.logger = logger;
    o.idempotencyKeyPattern = '^[^\\s]+$';
    configure(o);
  });
  let runs = 0;
  app.post('/orders', requiredIdempotentKey(), (_req, res) => {
    runs += 1;
    res.status(201).json({ runs });
  });
  await prepareApp(app);
  return { app, seen, logger, runs: () => runs };
}

describe('idempotency guard: keys as characters', () => {
  it('hands the store the characters the client sent, not latin1 mojibake', async () => {
    const { app, seen, logger } = await spiedApp((o) => (o.conflictHandling = 'CachedResult'));
    await request(app).post('/orders').set(KEY, wire('注文-😀-é')).expect(201);
    const again = await request(app).post('/orders').set(KEY, wire('注文-😀-é')).expect(201);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(seen[0]!.idempotentKey).to.equal('注文-😀-é');
    expect(seen[0]!.safeKey).to.equal('注文-😀-é');
    expect(seen[0]!.compositeKey).to.equal(':POST:/ORDERS:注文-😀-é');
    expect(logger.text()).to.contain('注文-😀-é');
  });

  it('counts UTF-8 bytes as sent: 85 CJK characters (255 bytes) pass, 86 do not', async () => {
    const { app, runs } = await spiedApp();
    await request(app)
      .post('/orders')
      .set(KEY, wire('注'.repeat(85)))
      .expect(201);
    const res = await request(app)
      .post('/orders')
      .set(KEY, wire('注'.repeat(86)))
      .expect(400);
    expect(res.body.rule).to.equal('max-length');
    expect(res.body.detail).to.equal(
      'The X-Idempotency-Key header must be at most 255 bytes long (UTF-8, as sent).',
    );
    expect(runs()).to.equal(1);
  });

  it('accepts a 100-character CJK key (300 bytes) once the limit allows 300 bytes', async () => {
    const key = wire('鍵'.repeat(100));
    const strict = await spiedApp();
    expect((await request(strict.app).post('/orders').set(KEY, key)).body.rule).to.equal(
      'max-length',
    );
    const roomy = await spiedApp((o) => (o.maxIdempotencyKeyLength = 300));
    await request(roomy.app).post('/orders').set(KEY, key).expect(201);
    expect(roomy.seen[0]!.idempotentKey).to.equal('鍵'.repeat(100));
  });

  it('keeps keys apart that differ in one character, or only in normalisation form', async () => {
    const { app, runs } = await spiedApp();
    for (const key of ['注文-1', '注文-2', 'caf\u00e9', 'cafe\u0301']) {
      await request(app).post('/orders').set(KEY, wire(key)).expect(201);
    }
    expect(runs()).to.equal(4);
  });

  it('answers 400 utf-8 to bytes that are not UTF-8, before the store is asked', async () => {
    const { app, seen } = await spiedApp();
    const res = await request(app).post('/orders').set(KEY, 'k\u00ff\u00fe').expect(400);
    expect(res.body).to.include({ rule: 'utf-8', header: KEY });
    expect(seen).to.have.length(0);
  });

  it('checks the pattern against the characters, not the bytes', async () => {
    const { app } = await spiedApp((o) => (o.idempotencyKeyPattern = '^[\\u4e00-\\u9fff]+$'));
    await request(app).post('/orders').set(KEY, wire('注文')).expect(201);
    expect((await request(app).post('/orders').set(KEY, wire('order'))).body.rule).to.equal(
      'pattern',
    );
  });
});
