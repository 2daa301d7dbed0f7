// The endpoint of a key is the full route template, upper-cased: casing variants of a path are
// one endpoint, and path parameters do not split it.
import { expect } from 'chai';
import { Router } from 'express';
import request from 'supertest';
import { requiredIdempotentKey } from '@slicekit/runtime/idempotency';
import { counting, guardedApp } from './support/app.js';

describe('idempotency guard: route casing and templates', () => {
  it('treats /api/items and /api/Items as one endpoint', async () => {
    const { app, runs } = await guardedApp((app, runs) => {
      const api = Router();
      api.post('/items', requiredIdempotentKey(), counting(runs, 'items'));
      app.use('/api', api);
    });
    await request(app).post('/api/items').set('X-Idempotency-Key', 'k').expect(201);
    await request(app).post('/api/Items').set('X-Idempotency-Key', 'k').expect(409);
    await request(app).post('/API/ITEMS').set('X-Idempotency-Key', 'k').expect(409);
    expect(runs.of('items')).to.equal(1);
  });

  it('keys a parameterised route by its template, mount path included', async () => {
    const seen: string[] = [];
    const { app } = await guardedApp((app) => {
      const tenants = Router({ mergeParams: true });
      requiredIdempotentKey(tenants);
      tenants.post('/orders/:id', (req, res) => {
        seen.push(req.params.id!);
        res.status(201).json({ id: req.params.id });
      });
      app.use('/t/:tenant', tenants);
    });
    await request(app).post('/t/a/orders/1').set('X-Idempotency-Key', 'k').expect(201);
    // Same template /T/:TENANT/ORDERS/:ID, same key: a duplicate, as the spec keys by template.
    await request(app).post('/t/b/orders/2').set('X-Idempotency-Key', 'k').expect(409);
    expect(seen).to.deep.equal(['1']);
  });
});
