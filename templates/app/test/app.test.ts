// The app's own behaviour, whatever slices it has: unknown routes and malformed bodies get
// problem+json answers.
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from './support/test-app.js';

describe('app', () => {
  const test = useTestApp();

  it('answers 404 problem+json to an unknown route', async () => {
    const res = await request(test.app).get('/v1/no-such-resource');
    expect(res.status).to.equal(404);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.deep.include({ status: 404, title: 'Not Found' });
  });

  it('answers 400 problem+json to a malformed JSON body', async () => {
    const res = await request(test.app)
      .post('/v1/no-such-resource')
      .set('content-type', 'application/json')
      .send('{"name": ');
    expect(res.status).to.equal(400);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.deep.include({
      status: 400,
      detail: 'the request body is not valid JSON',
    });
  });
});
