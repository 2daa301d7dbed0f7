// 405 for a known path asked with another method, with Allow listing the methods the routes of
// that path take, read from the app's routers however deeply they are mounted.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { allowedMethods, methodNotAllowed, sendProblem } from '@slicekit/runtime/http';

function app() {
  const a = express();
  const v1 = express.Router();
  const items = express.Router();
  items.get('/', (_req, res) => void res.json([]));
  items.post('/', (_req, res) => void res.status(201).json({}));
  items.get('/:id', (_req, res) => void res.json({}));
  items.put('/:id', (_req, res) => void res.json({}));
  items.delete('/:id', (_req, res) => void res.status(204).end());
  items.post('/:id/approval', (_req, res) => void res.json({}));
  v1.use('/items', items);
  v1.all('/anything', (_req, res) => void res.json({}));
  a.use('/v1', v1);
  a.get('/health', (_req, res) => void res.json({ ok: true }));
  a.use(methodNotAllowed());
  a.use((req, res) => {
    sendProblem(res, { title: 'Not Found', status: 404, detail: 'none', code: 'http.not_found' });
  });
  return a;
}

describe('methodNotAllowed', () => {
  it('answers 405 problem+json with Allow for a known path and an unknown method', async () => {
    const res = await request(app()).patch('/v1/items/42');
    expect(res.status).to.equal(405);
    expect(res.headers.allow).to.equal('DELETE, GET, HEAD, PUT');
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.deep.equal({
      type: 'urn:slicekit:problem:method-not-allowed',
      title: 'Method Not Allowed',
      status: 405,
      detail: '/v1/items/42 does not take PATCH; it takes DELETE, GET, HEAD, PUT',
      instance: '/v1/items/42',
      code: 'http.method_not_allowed',
      allowed: ['DELETE', 'GET', 'HEAD', 'PUT'],
    });
  });

  it('lists the methods of the collection and of an action, and of a route on the app', async () => {
    expect((await request(app()).delete('/v1/items').expect(405)).headers.allow).to.equal(
      'GET, HEAD, POST',
    );
    expect((await request(app()).get('/v1/items/42/approval').expect(405)).headers.allow).to.equal(
      'POST',
    );
    expect((await request(app()).post('/health?x=1').expect(405)).body.instance).to.equal(
      '/health?x=1',
    );
  });

  it('leaves unknown paths, known methods and routes taking every method to what follows', async () => {
    expect((await request(app()).patch('/v1/nothing')).status).to.equal(404);
    expect((await request(app()).patch('/v1/items/42/approval/more')).status).to.equal(404);
    expect((await request(app()).patch('/v1/anything')).status).to.equal(200);
    expect((await request(app()).head('/v1/items/42')).status).to.equal(200);
  });

  it('lets Express answer OPTIONS with Allow as before', async () => {
    const res = await request(app()).options('/v1/items/42');
    expect(res.status).to.equal(200);
    expect(res.headers.allow).to.equal('DELETE, GET, HEAD, PUT');
  });

  it('reads the methods of a router without a request', () => {
    const router = express.Router();
    router.get('/a/:id', () => {});
    router.post('/a/:id', () => {});
    expect(allowedMethods(router, '/a/1')).to.deep.equal(['GET', 'HEAD', 'POST']);
    expect(allowedMethods(router, '/b')).to.deep.equal([]);
  });
});
