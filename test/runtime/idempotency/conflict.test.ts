// Duplicates: 409 in ConflictResponse mode, replay of the first response in CachedResult mode,
// and 409 with Retry-After for a duplicate of a request still in flight, in both modes.
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import {
  requiredIdempotentKey,
  type IdempotentConflictHandling,
} from '@slicekit/runtime/idempotency';
import { counting, guardedApp, type Runs } from './support/app.js';

function routes(app: Express, runs: Runs): void {
  app.post('/json', requiredIdempotentKey(), counting(runs, 'json'));
  app.post('/status-json', requiredIdempotentKey(), (_req, res) => {
    res.status(202).json({ run: runs.hit('status-json') });
  });
  app.post('/send-text', requiredIdempotentKey(), (_req, res) => {
    res.type('text/plain; charset=utf-8').send(`run ${runs.hit('send-text')} ☕`);
  });
  app.post('/end-untyped', requiredIdempotentKey(), (_req, res) => {
    runs.hit('end-untyped');
    res.statusCode = 200;
    res.end('{"raw":true}');
  });
  app.post('/send-status', requiredIdempotentKey(), (_req, res) => {
    runs.hit('send-status');
    res.sendStatus(204);
  });
  app.post('/chunks', requiredIdempotentKey(), (_req, res) => {
    const run = runs.hit('chunks');
    res.status(200).type('application/x-ndjson');
    res.write(`{"part":1,"run":${run}}\n`);
    setTimeout(() => {
      res.write(Buffer.from('{"part":2}\n'));
      res.end('{"part":3}\n', 'utf8');
    }, 5);
  });
  app.post('/slow', requiredIdempotentKey(), (_req, res) => {
    const run = runs.hit('slow');
    setTimeout(() => res.status(201).json({ run }), 150);
  });
}

const modeApp = (mode: IdempotentConflictHandling) =>
  guardedApp(routes, (o) => (o.conflictHandling = mode));

describe('idempotency guard: duplicates', () => {
  describe('ConflictResponse (the default)', () => {
    it('answers 409 problem+json to a duplicate key and runs the handler once', async () => {
      const { app, runs } = await guardedApp(routes);
      await request(app).post('/json').set('X-Idempotency-Key', 'k1').expect(201);
      const res = await request(app).post('/json').set('X-Idempotency-Key', 'k1').expect(409);
      expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(res.body).to.include({ status: 409, title: 'Conflict', state: 'completed' });
      expect(res.headers['retry-after']).to.equal(undefined);
      expect(runs.of('json')).to.equal(1);
    });

    it('treats the same key on another route as a new request', async () => {
      const { app, runs } = await guardedApp(routes);
      await request(app).post('/json').set('X-Idempotency-Key', 'k1').expect(201);
      await request(app).post('/status-json').set('X-Idempotency-Key', 'k1').expect(202);
      expect(runs.of('status-json')).to.equal(1);
    });
  });

  describe('CachedResult', () => {
    it('replays status, body and content type, marked Idempotent-Replayed', async () => {
      const { app, runs } = await modeApp('CachedResult');
      const first = await request(app).post('/json').set('X-Idempotency-Key', 'k1').expect(201);
      const again = await request(app).post('/json').set('X-Idempotency-Key', 'k1').expect(201);
      expect(again.text).to.equal(first.text);
      expect(again.headers['content-type']).to.equal(first.headers['content-type']);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(first.headers['idempotent-replayed']).to.equal(undefined);
      expect(runs.of('json')).to.equal(1);
    });

    it('replays res.status(..).json', async () => {
      const { app, runs } = await modeApp('CachedResult');
      await request(app).post('/status-json').set('X-Idempotency-Key', 'k').expect(202);
      const again = await request(app)
        .post('/status-json')
        .set('X-Idempotency-Key', 'k')
        .expect(202);
      expect(again.body).to.deep.equal({ run: 1 });
      expect(runs.of('status-json')).to.equal(1);
    });

    it('replays res.send text byte for byte with its content type', async () => {
      const { app } = await modeApp('CachedResult');
      const first = await request(app).post('/send-text').set('X-Idempotency-Key', 'k').expect(200);
      const again = await request(app).post('/send-text').set('X-Idempotency-Key', 'k').expect(200);
      expect(again.text).to.equal('run 1 ☕').and.to.equal(first.text);
      expect(again.headers['content-type']).to.equal('text/plain; charset=utf-8');
    });

    it('replays res.end with application/json when the handler set no content type', async () => {
      const { app, runs } = await modeApp('CachedResult');
      await request(app).post('/end-untyped').set('X-Idempotency-Key', 'k').expect(200);
      const again = await request(app)
        .post('/end-untyped')
        .set('X-Idempotency-Key', 'k')
        .expect(200);
      expect(again.headers['content-type']).to.equal('application/json');
      expect(again.body).to.deep.equal({ raw: true });
      expect(runs.of('end-untyped')).to.equal(1);
    });

    it('replays res.sendStatus(204) as a body-less 204', async () => {
      const { app, runs } = await modeApp('CachedResult');
      await request(app).post('/send-status').set('X-Idempotency-Key', 'k').expect(204);
      const again = await request(app)
        .post('/send-status')
        .set('X-Idempotency-Key', 'k')
        .expect(204);
      expect(again.text).to.equal('');
      expect(again.headers['content-length']).to.equal(undefined);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(runs.of('send-status')).to.equal(1);
    });

    it('replays a response written in several chunks as one body', async () => {
      const { app, runs } = await modeApp('CachedResult');
      const first = await request(app).post('/chunks').set('X-Idempotency-Key', 'k').expect(200);
      const again = await request(app).post('/chunks').set('X-Idempotency-Key', 'k').expect(200);
      expect(first.text).to.equal('{"part":1,"run":1}\n{"part":2}\n{"part":3}\n');
      expect(again.text).to.equal(first.text);
      expect(again.headers['content-type']).to.equal(first.headers['content-type']);
      expect(runs.of('chunks')).to.equal(1);
    });
  });

  for (const mode of ['ConflictResponse', 'CachedResult'] as const) {
    it(`answers 409 with Retry-After to a duplicate while the first is in flight (${mode})`, async () => {
      const { app, runs } = await modeApp(mode);
      const first = request(app)
        .post('/slow')
        .set('X-Idempotency-Key', 'k')
        .then((r) => r);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const duplicate = await request(app).post('/slow').set('X-Idempotency-Key', 'k').expect(409);
      expect(duplicate.headers['retry-after']).to.equal('1');
      expect(duplicate.body).to.include({ status: 409, state: 'in-flight' });
      expect((await first).status).to.equal(201);
      expect(runs.of('slow')).to.equal(1);
    });
  }
});
