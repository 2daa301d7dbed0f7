// Request validation over HTTP: 400 problem+json listing every field error, and the opt-out.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { validateBody } from '@slicekit/runtime/crud';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 5 },
    price: { type: 'number', minimum: 0.01, 'x-decimal-places': 2 },
    when: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['name', 'price'],
};

function app(enabled = true) {
  const a = express();
  a.use(express.json());
  a.post('/things', validateBody(schema, { enabled }), (req, res) => {
    res.json({ received: req.body });
  });
  return a;
}

describe('request validation', () => {
  it('lets a valid body through, decimals with two places included', async () => {
    const res = await request(app()).post('/things').send({ name: 'Desk', price: 19.99 });
    expect(res.status).to.equal(200);
  });

  it('answers 400 problem+json listing each field error', async () => {
    const res = await request(app())
      .post('/things')
      .send({ name: 'Too long', price: 0, when: 'yesterday' });
    expect(res.status).to.equal(400);
    expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({
      status: 400,
      code: 'crud.invalid_request',
      instance: '/things',
    });
    const fields = (res.body.errors as { field: string; keyword: string }[]).map(
      (e) => `${e.field}:${e.keyword}`,
    );
    expect(fields).to.have.members(['name:maxLength', 'price:minimum', 'when:format']);
  });

  it('names a missing property, and treats a missing body as empty', async () => {
    const res = await request(app()).post('/things');
    expect(res.status).to.equal(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).to.have.members([
      'name',
      'price',
    ]);
    expect(res.body.errors[0].message).to.equal('is required');
  });

  it('refuses a price with more decimals than the column keeps, at any magnitude', async () => {
    const res = await request(app()).post('/things').send({ name: 'Desk', price: 19.995 });
    expect(res.status).to.equal(400);
    expect(res.body.errors[0]).to.include({ field: 'price', keyword: 'x-decimal-places' });
    const big = await request(app()).post('/things').send({ name: 'Safe', price: 1234567890.12 });
    expect(big.status).to.equal(200);
  });

  it('lets anything through when the slice opts out', async () => {
    const res = await request(app(false)).post('/things').send({ price: -1 });
    expect(res.status).to.equal(200);
  });
});
