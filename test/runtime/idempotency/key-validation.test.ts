// Key validation on a guarded route: presence, length, pattern (linear time, RE2), in that order,
// each failing with a 400 problem naming the header and the rule, before the store is touched.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  addIdempotentKeyWithStore,
  buildKeyInfo,
  DEFAULT_KEY_PATTERN,
  prepareApp,
  requiredIdempotentKey,
  safeKeyOf,
  silentLogger,
  storageKey,
  type IdempotentKeyInfo,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { compileKeyPattern } from '@slicekit/runtime/internal';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { counting, guardedApp } from './support/app.js';

async function ordersApp(configure?: Parameters<typeof guardedApp>[1]) {
  return guardedApp((app, runs) => {
    app.post('/orders', requiredIdempotentKey(), counting(runs, 'orders'));
  }, configure);
}

describe('idempotency guard: key validation', () => {
  it('answers 400 problem+json when the key header is missing, and never runs the handler', async () => {
    const { app, runs } = await ordersApp();
    const res = await request(app).post('/orders').send({}).expect(400);
    expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ status: 400, header: 'X-Idempotency-Key', rule: 'required' });
    expect(runs.of('orders')).to.equal(0);
  });

  it('answers 400 to a blank key', async () => {
    const { app, runs } = await ordersApp();
    const res = await request(app).post('/orders').set('X-Idempotency-Key', '   ').expect(400);
    expect(res.body.rule).to.equal('required');
    expect(runs.of('orders')).to.equal(0);
  });

  it('accepts a key of exactly the maximum length and refuses one character more', async () => {
    const { app, runs } = await ordersApp();
    await request(app).post('/orders').set('X-Idempotency-Key', 'k'.repeat(255)).expect(201);
    const res = await request(app)
      .post('/orders')
      .set('X-Idempotency-Key', 'k'.repeat(256))
      .expect(400);
    expect(res.body.rule).to.equal('max-length');
    expect(res.body.detail).to.contain('255');
    expect(runs.of('orders')).to.equal(1);
  });

  it('honours a configured maximum length', async () => {
    const { app } = await ordersApp((o) => (o.maxIdempotencyKeyLength = 4));
    await request(app).post('/orders').set('X-Idempotency-Key', 'abcd').expect(201);
    await request(app).post('/orders').set('X-Idempotency-Key', 'abcde').expect(400);
  });

  it('answers 400 to a key outside the default pattern', async () => {
    const { app, runs } = await ordersApp();
    const res = await request(app).post('/orders').set('X-Idempotency-Key', 'a b!').expect(400);
    expect(res.body.rule).to.equal('pattern');
    expect(runs.of('orders')).to.equal(0);
  });

  it('checks length before the pattern', async () => {
    const { app } = await ordersApp((o) => (o.maxIdempotencyKeyLength = 3));
    const res = await request(app).post('/orders').set('X-Idempotency-Key', '!!!!').expect(400);
    expect(res.body.rule).to.equal('max-length');
  });

  it('reads the key from a configured header, case-insensitively', async () => {
    const { app } = await ordersApp((o) => (o.idempotencyHeaderKey = 'Idempotency-Key'));
    await request(app).post('/orders').set('idempotency-key', 'abc').expect(201);
    const res = await request(app).post('/orders').set('X-Idempotency-Key', 'abc').expect(400);
    expect(res.body.header).to.equal('Idempotency-Key');
  });

  it('applies a custom pattern', async () => {
    const { app } = await ordersApp((o) => (o.idempotencyKeyPattern = '^ord-[0-9]+$'));
    await request(app).post('/orders').set('X-Idempotency-Key', 'ord-12').expect(201);
    const res = await request(app).post('/orders').set('X-Idempotency-Key', 'abc').expect(400);
    expect(res.body.rule).to.equal('pattern');
  });

  it('answers a pattern that would backtrack catastrophically under RegExp, at any key length', async () => {
    const { app, runs } = await ordersApp((o) => (o.idempotencyKeyPattern = '^(a+)+$'));
    // 254 a's then a mismatch: 2^254 backtracking steps for RegExp; one pass for RE2.
    for (const key of [`${'a'.repeat(40)}!`, `${'a'.repeat(254)}!`]) {
      const res = await request(app).post('/orders').set('X-Idempotency-Key', key).expect(400);
      expect(res.body.rule).to.equal('pattern');
    }
    expect(runs.of('orders')).to.equal(0);
    await request(app).post('/orders').set('X-Idempotency-Key', 'a'.repeat(255)).expect(201);
  });

  it('tests the default pattern with RegExp and a custom one with RE2, alike on what they accept', () => {
    const matchesDefault = compileKeyPattern(DEFAULT_KEY_PATTERN);
    const matchesCustom = compileKeyPattern('^[a-zA-Z0-9_-]+$');
    for (const key of ['order_1-A', 'a b', '注文-1', 'x.y', 'a\n']) {
      expect(matchesCustom(key), key).to.equal(matchesDefault(key));
    }
    expect(matchesDefault('order_1-A')).to.equal(true);
  });

  it('never touches the store for a key that fails a rule', async () => {
    const checked: IdempotentKeyInfo[] = [];
    class SpyStore extends MemoryIdempotencyStore {
      constructor(timings: StoreTimings) {
        super(timings);
      }
      override isKeyProcessed(info: IdempotentKeyInfo) {
        checked.push(info);
        return super.isKeyProcessed(info);
      }
    }
    const app = express();
    addIdempotentKeyWithStore(app, SpyStore, (o) => {
      o.logger = silentLogger;
      o.maxIdempotencyKeyLength = 8;
    });
    app.post('/orders', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    await prepareApp(app);
    await request(app).post('/orders').expect(400);
    await request(app).post('/orders').set('X-Idempotency-Key', ' ').expect(400);
    await request(app).post('/orders').set('X-Idempotency-Key', 'k'.repeat(9)).expect(400);
    await request(app).post('/orders').set('X-Idempotency-Key', 'a.b').expect(400);
    expect(checked).to.have.length(0);
    await request(app).post('/orders').set('X-Idempotency-Key', 'ok').expect(201);
    expect(checked).to.have.length(1);
  });

  it('keeps control characters out of the logged key', async () => {
    const { app, logger } = await ordersApp((o) => {
      o.idempotencyKeyPattern = '^[^ ]+$';
      o.conflictHandling = 'ConflictResponse';
    });
    const key = 'tab\there'; // HTAB is the one control character HTTP lets through
    await request(app).post('/orders').set('X-Idempotency-Key', key).expect(201);
    await request(app).post('/orders').set('X-Idempotency-Key', key).expect(409);
    const logged = logger.entries.filter((e) => e.level === 'debug').map((e) => e.obj);
    expect(logged).to.deep.include({
      idempotencyKey: 'tabhere',
      method: 'POST',
      endpoint: '/ORDERS',
    });
    expect(logger.text()).not.to.contain('\\t');
  });
});

describe('idempotency key info', () => {
  it('composes <scope>:<METHOD>:<ENDPOINT>:<key> with method and endpoint upper-cased', () => {
    const info = buildKeyInfo('Order-1', 'post', '/api/Items', 'user:42');
    expect(info.compositeKey).to.equal('user:42:POST:/API/ITEMS:Order-1');
    expect(info).to.include({ method: 'POST', endpoint: '/API/ITEMS', scope: 'user:42' });
  });

  it('strips CR, LF, U+2028, U+2029 and other control characters from the safe key', () => {
    expect(safeKeyOf('a\r\nb\u2028c\u2029d\u0000e\u007fg\u0085h')).to.equal('abcdegh');
    expect(buildKeyInfo('x\ny', 'POST', '/a', '').safeKey).to.equal('xy');
  });

  it('stores under <prefix>:<sha256 hex of the composite key>', () => {
    const key = storageKey('idem', buildKeyInfo('k', 'POST', '/a', ''));
    expect(key).to.match(/^idem:[0-9a-f]{64}$/);
    expect(key).not.to.contain('POST');
  });

  it('gives the guard-built key info and a store-built plain object the same storage key', () => {
    const info = buildKeyInfo('k', 'POST', '/a', 'user:1');
    const plain = { compositeKey: 'user:1:POST:/A:k' };
    // Asked twice and under another prefix in between: the guard's info remembers its key.
    expect(storageKey('idem', info)).to.equal(storageKey('idem', plain));
    expect(storageKey('other', info)).to.equal(storageKey('other', plain));
    expect(storageKey('idem', info)).to.equal(storageKey('idem', plain));
    expect(storageKey('idem', info)).not.to.equal(storageKey('other', info));
  });
});
