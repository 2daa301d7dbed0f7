// A generated Create route numbering rows from a sequence: distinct values under concurrency, and a
// clear 409 problem once the sequence reaches its maximum, on every database.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { crudRoute } from '@slicekit/runtime/crud';
import { defineSequence, nextValue, sequenceMigration } from '@slicekit/runtime/sequences';
import { describeEachDatabase } from '../../support/services.js';

const tickets = defineSequence({ name: 'route_tickets', format: 'T{1:000}', max: 52 });

describeEachDatabase('a route numbering from a sequence', (db) => {
  const app = express();
  app.post(
    '/tickets',
    crudRoute(async (_req, res) => {
      res.status(201).json({ number: await nextValue(db.knex, tickets) });
    }),
  );

  before(() => sequenceMigration([tickets]).up(db.knex));

  it('gives 50 concurrent requests 50 different formatted numbers', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => request(app).post('/tickets')),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(201));
    const numbers = answers.map((a) => a.body.number as string);
    expect(new Set(numbers).size).to.equal(50);
    for (const number of numbers) expect(number).to.match(/^T\d{3}$/);
  });

  it('answers 409 problem+json naming the sequence and its maximum once it is used up', async () => {
    await request(app).post('/tickets').expect(201);
    await request(app).post('/tickets').expect(201);
    const res = await request(app).post('/tickets');
    expect(res.status).to.equal(409);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.include({
      status: 409,
      code: 'sequence_exhausted',
      sequence: 'route_tickets',
      detail: 'sequence "route_tickets" has reached its maximum of 52',
      instance: '/tickets',
    });
  });
});
