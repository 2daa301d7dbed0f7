// The caller scope: user id, then an HMAC of the Authorization header, then the client address,
// else empty; a custom resolver replaces the whole chain.
import { expect } from 'chai';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { createHmac } from 'node:crypto';
import express from 'express';
import {
  addIdempotentKeyWithStore,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type IdempotentKeyInfo,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { counting, guardedApp } from './support/app.js';

const KEY = 'X-Idempotency-Key';
const SECRET = 'scope-secret-for-tests';

/** Sets `req.user` from `X-User` (and `X-Tenant`) headers, standing in for `authenticate()`. */
function fakeAuth(req: Request, _res: Response, next: NextFunction): void {
  const id = req.get('x-user');
  const tenant = req.get('x-tenant');
  if (id) req.user = { id, ...(tenant !== undefined ? { tenant } : {}) } as Express.User;
  next();
}

async function scopedApp(configure?: Parameters<typeof guardedApp>[1]) {
  return guardedApp((app, runs) => {
    app.set('trust proxy', true);
    app.use(fakeAuth);
    app.post('/orders', requiredIdempotentKey(), counting(runs, 'orders'));
  }, configure);
}

function post(app: Parameters<typeof request>[0], headers: Record<string, string>) {
  let req = request(app).post('/orders').set(KEY, 'same-key');
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return req;
}

describe('idempotency guard: caller scope', () => {
  it('scopes by the authenticated user: two users never collide, one user does', async () => {
    const { app, runs } = await scopedApp();
    await post(app, { 'X-User': 'alice' }).expect(201);
    await post(app, { 'X-User': 'bob' }).expect(201);
    await post(app, { 'X-User': 'alice' }).expect(409);
    expect(runs.of('orders')).to.equal(2);
  });

  it('scopes by the tenant too: one user id in two tenants is two callers', async () => {
    const { app, runs } = await scopedApp();
    await post(app, { 'X-User': 'alice', 'X-Tenant': 'ACME' }).expect(201);
    await post(app, { 'X-User': 'alice', 'X-Tenant': 'acme' }).expect(201);
    await post(app, { 'X-User': 'alice' }).expect(201);
    await post(app, { 'X-User': 'alice', 'X-Tenant': 'ACME' }).expect(409);
    expect(runs.of('orders')).to.equal(3);
  });

  it('scopes by a numeric user id (as Passport apps often set it) like a string one', async () => {
    const { app, runs } = await guardedApp((a, r) => {
      a.use((req, _res, next) => {
        const id = req.get('x-user');
        // A JavaScript app (or a Passport deserializer) may put a number here.
        if (id) req.user = { id: Number(id) } as unknown as Express.User;
        next();
      });
      a.post('/orders', requiredIdempotentKey(), counting(r, 'orders'));
    });
    await post(app, { 'X-User': '1' }).expect(201);
    await post(app, { 'X-User': '2' }).expect(201);
    await post(app, { 'X-User': '1' }).expect(409);
    expect(runs.of('orders')).to.equal(2);
  });

  it('prefers the user over the Authorization digest', async () => {
    const { app } = await scopedApp((o) => (o.scopeHmacSecret = SECRET));
    await post(app, { 'X-User': 'alice', Authorization: 'Bearer one' }).expect(201);
    await post(app, { 'X-User': 'alice', Authorization: 'Bearer two' }).expect(409);
  });

  it('with scopeHmacSecret, scopes anonymous callers by their Authorization header', async () => {
    const { app, runs } = await scopedApp((o) => (o.scopeHmacSecret = SECRET));
    await post(app, { Authorization: 'Bearer token-one' }).expect(201);
    await post(app, { Authorization: 'Bearer token-two' }).expect(201);
    await post(app, { Authorization: 'Bearer token-one' }).expect(409);
    expect(runs.of('orders')).to.equal(2);
  });

  it('never logs the Authorization header or the secret, only the digest scope', async () => {
    const { app, logger } = await scopedApp((o) => (o.scopeHmacSecret = SECRET));
    await post(app, { Authorization: 'Bearer very-secret-token' }).expect(201);
    await post(app, { Authorization: 'Bearer very-secret-token' }).expect(409);
    expect(logger.entries.length).to.be.greaterThan(0);
    expect(logger.text()).not.to.contain('very-secret-token');
    expect(logger.text()).not.to.contain(SECRET);
  });

  it('without scopeHmacSecret, ignores the Authorization header', async () => {
    const { app } = await scopedApp();
    await post(app, { Authorization: 'Bearer token-one' }).expect(201);
    await post(app, { Authorization: 'Bearer token-two' }).expect(409);
  });

  it('with includeClientIpInScope, scopes anonymous callers by client address', async () => {
    const { app, runs } = await scopedApp((o) => (o.includeClientIpInScope = true));
    await post(app, { 'X-Forwarded-For': '203.0.113.1' }).expect(201);
    await post(app, { 'X-Forwarded-For': '203.0.113.2' }).expect(201);
    await post(app, { 'X-Forwarded-For': '203.0.113.1' }).expect(409);
    expect(runs.of('orders')).to.equal(2);
  });

  it('prefers the Authorization digest over the client address', async () => {
    const { app } = await scopedApp((o) => {
      o.scopeHmacSecret = SECRET;
      o.includeClientIpInScope = true;
    });
    await post(app, { Authorization: 'Bearer a', 'X-Forwarded-For': '203.0.113.1' }).expect(201);
    await post(app, { Authorization: 'Bearer a', 'X-Forwarded-For': '203.0.113.2' }).expect(409);
  });

  it('falls through to an empty scope: anonymous callers share keys', async () => {
    const { app, runs } = await scopedApp();
    await post(app, { 'X-Forwarded-For': '203.0.113.1' }).expect(201);
    await post(app, { 'X-Forwarded-For': '203.0.113.2' }).expect(409);
    expect(runs.of('orders')).to.equal(1);
  });

  it('uses a custom keyScopeResolver verbatim and skips the whole chain', async () => {
    const seen: string[] = [];
    const { app, runs } = await scopedApp((o) => {
      o.scopeHmacSecret = SECRET;
      o.keyScopeResolver = (req) => {
        const tenant = req.get('x-tenant') ?? null;
        seen.push(String(tenant));
        return tenant;
      };
    });
    // Different users, same tenant: one scope, so a duplicate.
    await post(app, { 'X-User': 'alice', 'X-Tenant': 't1' }).expect(201);
    await post(app, { 'X-User': 'bob', 'X-Tenant': 't1' }).expect(409);
    await post(app, { 'X-User': 'bob', 'X-Tenant': 't2' }).expect(201);
    // A null scope is the empty scope.
    await post(app, { 'X-User': 'carol' }).expect(201);
    await post(app, { 'X-User': 'dave' }).expect(409);
    expect(runs.of('orders')).to.equal(3);
    expect(seen).to.deep.equal(['t1', 't1', 't2', 'null', 'null']);
  });
});

describe('idempotency guard: the scope a store receives', () => {
  async function scopesSeen(
    configure: Parameters<typeof guardedApp>[1],
    headers: Record<string, string>,
  ): Promise<string> {
    const seen: IdempotentKeyInfo[] = [];
    class SpyStore extends MemoryIdempotencyStore {
      constructor(timings: StoreTimings) {
        super(timings);
      }
      override isKeyProcessed(info: IdempotentKeyInfo) {
        seen.push(info);
        return super.isKeyProcessed(info);
      }
    }
    const app = express();
    app.set('trust proxy', true);
    app.use(fakeAuth);
    addIdempotentKeyWithStore(app, SpyStore, (o) => {
      o.logger = silentLogger;
      configure?.(o);
    });
    app.post('/orders', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    await prepareApp(app);
    await post(app, headers).expect(201);
    expect(seen).to.have.length(1);
    expect(seen[0]!.compositeKey).to.equal(`${seen[0]!.scope}:POST:/ORDERS:same-key`);
    return seen[0]!.scope;
  }

  it('is user:<id> for an authenticated caller, led by its tenant when it names one', async () => {
    expect(await scopesSeen(undefined, { 'X-User': 'alice' })).to.equal('user:alice');
    expect(await scopesSeen(undefined, { 'X-User': 'alice', 'X-Tenant': 'a"b' })).to.equal(
      'tenant:"a\\"b" user:alice',
    );
  });

  it('is auth:<hex HMAC-SHA256 of the Authorization header> with scopeHmacSecret', async () => {
    const digest = createHmac('sha256', SECRET).update('Bearer t').digest('hex');
    const scope = await scopesSeen((o) => (o.scopeHmacSecret = SECRET), {
      Authorization: 'Bearer t',
    });
    expect(scope).to.equal(`auth:${digest}`);
  });

  it('is ip:<address> with includeClientIpInScope', async () => {
    const scope = await scopesSeen((o) => (o.includeClientIpInScope = true), {
      'X-Forwarded-For': '203.0.113.9',
    });
    expect(scope).to.equal('ip:203.0.113.9');
  });

  it('is empty for an anonymous caller by default', async () => {
    expect(await scopesSeen(undefined, { Authorization: 'Bearer t' })).to.equal('');
  });
});
