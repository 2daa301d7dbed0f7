// The app's own behaviour, whatever slices it has: unknown routes, wrong methods, malformed and
// oversized bodies get problem+json answers; logs keep database values and secret query parameters
// out.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import request from 'supertest';
import { closeIdempotency } from '@slicekit/runtime/idempotency';
import { createApp } from '../src/app.js';
import { createLogger } from '../src/logger.js';
import { testAuth, useTestApp } from './support/test-app.js';

/** A logger as the app's, writing its JSON lines into `lines` instead of stdout. */
function capturingLogger(lines: string[]) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').trim().split('\n'));
      done();
    },
  });
  return createLogger('info', stream);
}

describe('app', () => {
  const test = useTestApp();

  it('answers 404 problem+json to an unknown route', async () => {
    const res = await request(test.app).get('/v1/no-such-resource');
    expect(res.status).to.equal(404);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.deep.include({
      type: 'urn:slicekit:problem:route-not-found',
      title: 'Not Found',
      status: 404,
      instance: '/v1/no-such-resource',
      code: 'http.not_found',
    });
  });

  it('answers 405 problem+json with Allow to a known path asked with another method', async () => {
    const res = await request(test.app).delete('/openapi.json');
    expect(res.status).to.equal(405);
    expect(res.headers.allow).to.equal('GET, HEAD');
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.deep.include({ code: 'http.method_not_allowed', allowed: ['GET', 'HEAD'] });
  });

  it('answers the health probes: live, and ready once the database is migrated', async () => {
    await request(test.app).get('/health/live').expect(200, { status: 'up' });
    const ready = await request(test.app).get('/health/ready');
    expect(ready.status, ready.text).to.equal(200);
    expect(ready.body.checks).to.deep.include({ name: 'database', status: 'up', critical: true });
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

  it('answers 413 problem+json "Content Too Large" to a body over the limit', async () => {
    const res = await request(test.app)
      .post('/v1/no-such-resource')
      .send({ text: 'x'.repeat(200_000) });
    expect(res.status).to.equal(413);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.include({ title: 'Content Too Large', code: 'http.body_too_large' });
  });

  it('logs a database error by its code and statement, never the values', async () => {
    await test.knex.schema.createTable('log_check', (t) => {
      t.string('email', 60).unique();
    });
    const email = 'quokka-orbit@example.test';
    await test.knex('log_check').insert({ email });
    const error = await test
      .knex('log_check')
      .insert({ email })
      .then(() => undefined)
      .catch((e: unknown) => e);
    const lines: string[] = [];
    capturingLogger(lines).error({ err: error }, 'request failed');
    expect(lines.join('\n')).not.to.contain(email);
    const { err } = JSON.parse(lines[0]!) as { err: { code?: unknown; statement?: string } };
    expect(err.code).to.be.a('string');
    expect(err.statement).to.match(/^insert into .log_check. \(.email.\) values/);
    await test.knex.schema.dropTable('log_check');
  });

  it('logs each request with secret query parameters redacted', async () => {
    const lines: string[] = [];
    const app = await createApp({
      knex: test.knex,
      logger: capturingLogger(lines),
      auth: testAuth,
    });
    await request(app).get('/v1/no-such-resource?access_token=abc.def.ghi&page=2');
    await closeIdempotency(app);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; url?: string });
    expect(logged.find((line) => line.msg === 'request')?.url).to.equal(
      '/v1/no-such-resource?access_token=[REDACTED]&page=2',
    );
    expect(lines.join('\n')).not.to.contain('abc.def.ghi');
  });
});
