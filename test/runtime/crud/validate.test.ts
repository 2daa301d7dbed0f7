// Request validation over HTTP: 400 problem+json listing every field error (unknown properties and
// blank required text included), 415 for a body that is not JSON, and the opt-out.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { validateBody } from '@slicekit/runtime/crud';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 5, 'x-not-blank': true },
    price: { type: 'number', minimum: 0.01, 'x-decimal-places': 2 },
    when: { type: ['string', 'null'], format: 'date-time' },
    note: { type: ['string', 'null'] },
  },
  required: ['name', 'price'],
  additionalProperties: false,
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

  it('refuses each property the schema does not list, saying to remove it', async () => {
    const res = await request(app())
      .post('/things')
      .send({ name: 'Desk', price: 5, id: 'x', isVip: true });
    expect(res.status).to.equal(400);
    expect(res.body.detail).to.equal('the request is invalid: id, isVip');
    expect(res.body.errors).to.deep.equal([
      {
        field: 'id',
        message: 'is not a property of this request; remove it',
        keyword: 'additionalProperties',
      },
      {
        field: 'isVip',
        message: 'is not a property of this request; remove it',
        keyword: 'additionalProperties',
      },
    ]);
  });

  it('refuses a required text of blanks, and leaves an optional one as sent', async () => {
    for (const name of ['   ', '\t\n', '\u00a0\u2003']) {
      const res = await request(app()).post('/things').send({ name, price: 5 });
      expect(res.status, JSON.stringify(name)).to.equal(400);
      expect(res.body.errors).to.deep.equal([
        { field: 'name', message: 'must not be blank', keyword: 'x-not-blank' },
      ]);
    }
    const empty = await request(app()).post('/things').send({ name: '', price: 5 });
    expect(empty.body.errors.map((e: { keyword: string }) => e.keyword)).to.deep.equal([
      'minLength',
    ]);
    const padded = await request(app()).post('/things').send({ name: ' a ', price: 5, note: '  ' });
    expect(padded.status).to.equal(200);
    expect(padded.body.received).to.deep.equal({ name: ' a ', price: 5, note: '  ' });
  });

  for (const enabled of [true, false]) {
    it(`answers 415 with Accept to a body that is not JSON (validation ${enabled ? 'on' : 'off'})`, async () => {
      const plain = await request(app(enabled))
        .post('/things')
        .set('content-type', 'text/plain')
        .send('name=Desk');
      expect(plain.status).to.equal(415);
      expect(plain.headers.accept).to.equal('application/json');
      expect(plain.type).to.equal('application/problem+json');
      expect(plain.body).to.deep.equal({
        type: 'urn:slicekit:problem:unsupported-media-type',
        title: 'Unsupported Media Type',
        status: 415,
        detail: 'the request body is text/plain; send it as application/json',
        instance: '/things',
        code: 'http.unsupported_media_type',
        contentType: 'text/plain',
        accepted: ['application/json'],
      });
      const form = await request(app(enabled)).post('/things').type('form').send({ name: 'Desk' });
      expect(form.status).to.equal(415);
      expect(form.body.contentType).to.equal('application/x-www-form-urlencoded');
    });
  }

  it('answers 415 to a body sent without a Content-Type', async () => {
    const res = await request(app()).post('/things').send('ab').unset('Content-Type');
    expect(res.status).to.equal(415);
    expect(res.body).to.include({
      detail: 'the request body has no Content-Type; send it as application/json',
      contentType: null,
    });
  });

  it('takes an empty body of any type as no body', async () => {
    const res = await request(app()).post('/things').set('content-type', 'text/plain').send('');
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('crud.invalid_request');
  });
});
