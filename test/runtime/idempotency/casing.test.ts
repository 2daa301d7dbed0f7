// The endpoint of a key is the route template under the mount path as matched (a group's: its
// mount path as matched), upper-cased: casing variants of a path are one endpoint, and path
// parameters of the route do not split it. The request fingerprint sees the path as sent: another
// path under the same key is a reused key (422), never a new request.
import { expect } from 'chai';
import { Router } from 'express';
import request from 'supertest';
import { requiredIdempotentKey, type IdempotencyOptions } from '@slicekit/runtime/idempotency';
import { counting, guardedApp } from './support/app.js';

const withoutFingerprint = (o: IdempotencyOptions) => (o.requestFingerprint = null);

describe('idempotency guard: route casing and templates', () => {
  for (const fingerprint of [false, true]) {
    const answer = fingerprint ? 422 : 409;
    it(`treats /api/items and /api/Items as one endpoint (${fingerprint ? '422: another path as sent' : 'no fingerprint: 409'})`, async () => {
      const { app, runs } = await guardedApp(
        (app, runs) => {
          const api = Router();
          api.post('/items', requiredIdempotentKey(), counting(runs, 'items'));
          app.use('/api', api);
        },
        fingerprint ? undefined : withoutFingerprint,
      );
      await request(app).post('/api/items').set('X-Idempotency-Key', 'k').expect(201);
      await request(app).post('/api/Items').set('X-Idempotency-Key', 'k').expect(answer);
      await request(app).post('/API/ITEMS').set('X-Idempotency-Key', 'k').expect(answer);
      await request(app).post('/api/items').set('X-Idempotency-Key', 'k').expect(409);
      expect(runs.of('items')).to.equal(1);
    });
  }

  it('keys a parameterised route by its template under the mount path as matched', async () => {
    const seen: string[] = [];
    const { app } = await guardedApp((app) => {
      const tenants = Router({ mergeParams: true });
      requiredIdempotentKey(tenants);
      tenants.post('/orders/:id', (req, res) => {
        seen.push(req.params.id!);
        res.status(201).json({ id: req.params.id });
      });
      app.use('/t/:tenant', tenants);
    }, withoutFingerprint);
    await request(app).post('/t/a/orders/1').set('X-Idempotency-Key', 'k').expect(201);
    // Same endpoint /T/A/ORDERS/:ID, same key: a duplicate, as the spec keys by template.
    await request(app).post('/t/a/orders/2').set('X-Idempotency-Key', 'k').expect(409);
    // Another tenant's mount path is another endpoint: the key is new there.
    await request(app).post('/t/b/orders/2').set('X-Idempotency-Key', 'k').expect(201);
    expect(seen).to.deep.equal(['1', '2']);
  });

  it('answers 422 when the same key comes back for another id (the path as sent differs)', async () => {
    const seen: string[] = [];
    const { app } = await guardedApp((app) => {
      const tenants = Router({ mergeParams: true });
      requiredIdempotentKey(tenants);
      tenants.post('/orders/:id', (req, res) => {
        seen.push(`${(req.params as Record<string, string>).tenant}/${req.params.id}`);
        res.status(201).json({ id: req.params.id });
      });
      app.use('/t/:tenant', tenants);
    });
    await request(app).post('/t/a/orders/1').set('X-Idempotency-Key', 'k').expect(201);
    await request(app).post('/t/a/orders/2').set('X-Idempotency-Key', 'k').expect(422);
    expect(seen).to.deep.equal(['a/1']);
  });
});
