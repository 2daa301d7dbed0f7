// Every problem the guard answers names its kind with a `type` in the runtime's URN form (as the
// CRUD, list-query and database problems do) and a `code`, has the members of every runtime
// problem (`instance` included), and docs/idempotency.md documents each.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { NOT_FOUND_TYPE } from '@slicekit/runtime/crud';
import { IdempotencyProblemType, requiredIdempotentKey } from '@slicekit/runtime/idempotency';
import { counting, guardedApp, type Runs } from './support/app.js';

const KEY = 'X-Idempotency-Key';

function routes(app: Express, runs: Runs): void {
  app.post('/orders', requiredIdempotentKey(), counting(runs, 'orders'));
  app.post('/slow', requiredIdempotentKey(), (_req, res) => {
    setTimeout(() => res.status(201).json({ run: runs.hit('slow') }), 150);
  });
}

describe('idempotency guard: problem types', () => {
  it('answers each problem with its type and code', async () => {
    const { app } = await guardedApp(routes);
    const missing = await request(app).post('/orders?x=1').send({});
    expect(missing.body).to.include({
      type: 'urn:slicekit:problem:idempotency-key-invalid',
      title: 'Bad Request',
      instance: '/orders?x=1',
      code: 'idempotency.key_invalid',
      rule: 'required',
    });
    // The members of every runtime problem, in their order, then the guard's own.
    expect(Object.keys(missing.body)).to.deep.equal([
      'type',
      'title',
      'status',
      'detail',
      'instance',
      'code',
      'header',
      'rule',
    ]);
    await request(app).post('/orders').set(KEY, 'k').send({ a: 1 }).expect(201);
    expect((await request(app).post('/orders').set(KEY, 'k').send({ a: 1 })).body).to.include({
      type: 'urn:slicekit:problem:idempotency-key-completed',
      code: 'idempotency.completed',
      status: 409,
    });
    expect((await request(app).post('/orders').set(KEY, 'k').send({ a: 2 })).body).to.include({
      type: 'urn:slicekit:problem:idempotency-key-reused',
      title: 'Unprocessable Content',
      instance: '/orders',
      code: 'idempotency.key_reused',
      status: 422,
    });
    const slow = request(app)
      .post('/slow')
      .set(KEY, 's')
      .then((r) => r);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await request(app).post('/slow').set(KEY, 's')).body).to.include({
      type: 'urn:slicekit:problem:idempotency-key-in-flight',
      code: 'idempotency.in_flight',
      status: 409,
    });
    await slow;
  });

  it('names types in the form every other runtime problem uses', () => {
    const prefix = NOT_FOUND_TYPE.slice(0, NOT_FOUND_TYPE.lastIndexOf(':') + 1);
    expect(prefix).to.equal('urn:slicekit:problem:');
    for (const type of Object.values(IdempotencyProblemType)) {
      expect(type).to.match(/^urn:slicekit:problem:idempotency-[a-z-]+$/);
    }
  });

  it('documents every type in docs/idempotency.md', () => {
    const doc = readFileSync(new URL('../../../docs/idempotency.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Problem types'));
    expect(section.length).to.be.greaterThan(100);
    for (const type of Object.values(IdempotencyProblemType)) {
      expect(section, type).to.contain(`\`${type}\``);
    }
  });
});
