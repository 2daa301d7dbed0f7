// The IETF draft's standard header: `Idempotency-Key` carries a Structured Field string, whose
// quotes are not part of the key; other headers take the value as it is.
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import {
  requiredIdempotentKey,
  STANDARD_KEY_HEADER,
  standardIdempotencyKeyHeader,
  type IdempotencyOptions,
} from '@slicekit/runtime/idempotency';
import { guardedApp, type Runs } from './support/app.js';

function routes(app: Express, runs: Runs): void {
  app.post('/orders', requiredIdempotentKey(), (req, res) => {
    res.status(201).json({ run: runs.hit('orders') });
  });
}

const standardApp = (more?: (o: IdempotencyOptions) => void) =>
  guardedApp(routes, (o) => {
    standardIdempotencyKeyHeader(o);
    o.conflictHandling = 'CachedResult';
    more?.(o);
  });

const UUID = '8e03978e-40d5-43e8-bc93-6894a57f9324';

describe('idempotency guard: the standard Idempotency-Key header', () => {
  it('is what the preset sets', () => {
    const options = { idempotencyHeaderKey: 'X-Idempotency-Key' } as IdempotencyOptions;
    standardIdempotencyKeyHeader(options);
    expect(options.idempotencyHeaderKey).to.equal('Idempotency-Key').and.equal(STANDARD_KEY_HEADER);
  });

  it('takes the Structured Field string form and the bare form as the same key', async () => {
    const { app, runs } = await standardApp();
    const first = await request(app).post('/orders').set('Idempotency-Key', `"${UUID}"`).send({});
    const bare = await request(app).post('/orders').set('Idempotency-Key', UUID).send({});
    const spaced = await request(app)
      .post('/orders')
      .set('idempotency-key', ` "${UUID}" `)
      .send({});
    expect([first.status, bare.status, spaced.status]).to.deep.equal([201, 201, 201]);
    expect(bare.headers['idempotent-replayed']).to.equal('true');
    expect(spaced.headers['idempotent-replayed']).to.equal('true');
    expect(runs.of('orders')).to.equal(1);
  });

  it('unescapes \\" and \\\\ inside the string', async () => {
    const { app, runs } = await standardApp((o) => (o.idempotencyKeyPattern = '^[ -~]+$'));
    await request(app).post('/orders').set('Idempotency-Key', '"a\\"b\\\\c"').send({}).expect(201);
    const same = await request(app).post('/orders').set('Idempotency-Key', 'a"b\\c').send({});
    expect(same.headers['idempotent-replayed']).to.equal('true');
    expect(runs.of('orders')).to.equal(1);
  });

  for (const [value, why] of [
    ['"unterminated', 'no closing quote'],
    ['"abc";v=1', 'parameters'],
    ['"a\\x"', 'an escape other than \\" and \\\\'],
    ['"abc" "def"', 'two strings'],
  ]) {
    it(`answers 400 structured-string to a malformed quoted value (${why})`, async () => {
      const { app, runs } = await standardApp();
      const res = await request(app).post('/orders').set('Idempotency-Key', value!).send({});
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ rule: 'structured-string', header: 'Idempotency-Key' });
      expect(res.body.detail).to.match(/Structured Field string/);
      expect(runs.of('orders')).to.equal(0);
    });
  }

  it('answers 400 required to an empty string "" ', async () => {
    const { app } = await standardApp();
    const res = await request(app).post('/orders').set('Idempotency-Key', '""').send({});
    expect(res.status).to.equal(400);
    expect(res.body.rule).to.equal('required');
  });

  it('keeps quotes as part of the value on any other header', async () => {
    const { app } = await guardedApp(routes);
    const res = await request(app).post('/orders').set('X-Idempotency-Key', `"${UUID}"`).send({});
    expect(res.status).to.equal(400);
    expect(res.body.rule).to.equal('pattern');
  });
});
