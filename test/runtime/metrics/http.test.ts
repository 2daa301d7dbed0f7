// Request durations through a real Express app: `/metrics` parses as Prometheus text, and the
// histogram's count moves by exactly the requests sent, labelled by route template, method and
// status; a path no route answers counts under one label, whatever the path.
import { expect } from 'chai';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { httpMetrics, startMetrics, type Metrics } from '@slicekit/runtime/metrics';
import { freePort, sampleValue, scrape, type Exposition } from '../../support/prometheus-text.js';

const silent = { info() {}, warn() {} };
const COUNT = 'http_server_request_duration_seconds_count';

class NotFound extends Error {}

function productsApp() {
  const app = express();
  app.use(httpMetrics());
  const v1 = express.Router();
  v1.get('/products', (_req, res) => void res.json([]));
  v1.post('/products', express.json(), (_req, res) => void res.status(201).json({ id: 1 }));
  v1.get('/products/:id', (req, res) => {
    // Thrown: the error leaves the router before the app's handler answers.
    if (req.params.id === 'missing') throw new NotFound();
    res.json({ id: req.params.id });
  });
  app.use('/v1', v1);
  app.use((_req: Request, res: Response) => void res.status(404).json({ status: 404 }));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err instanceof NotFound ? 404 : 500).json({});
  });
  return app;
}

describe('metrics: HTTP request durations', () => {
  let metrics: Metrics;
  before(async () => {
    metrics = await startMetrics({ port: await freePort(), logger: silent });
  });
  after(() => metrics.close());

  const count = (e: Exposition, route: string, method: string, status: number) =>
    sampleValue(e, COUNT, {
      http_route: route,
      http_request_method: method,
      http_response_status_code: String(status),
    });

  it('serves Prometheus text whose request count moves by exactly the requests sent', async () => {
    const app = productsApp();
    const before = await scrape(metrics.port!);
    expect(before.types.get('http_server_request_duration_seconds')).to.equal('histogram');

    for (let i = 0; i < 3; i++) await request(app).get('/v1/products').expect(200);
    await request(app).post('/v1/products').send({ name: 'a' }).expect(201);
    await request(app).get('/v1/products/7').expect(200);
    await request(app).get('/v1/products/8?x=1').expect(200);
    await request(app).get('/V1/products/missing').expect(404);
    await request(app).get('/v1/products/missing/').expect(404);

    const after = await scrape(metrics.port!);
    const moved = (route: string, method: string, status: number) =>
      count(after, route, method, status) - count(before, route, method, status);
    expect(moved('/v1/products', 'GET', 200)).to.equal(3);
    expect(moved('/v1/products', 'POST', 201)).to.equal(1);
    expect(moved('/v1/products/:id', 'GET', 200)).to.equal(2);
    // The error path names the same template, whatever the case of the mount path.
    expect(moved('/v1/products/:id', 'GET', 404)).to.equal(2);
    const total = (e: Exposition) =>
      e.samples.filter((s) => s.name === COUNT).reduce((sum, s) => sum + s.value, 0);
    expect(total(after) - total(before)).to.equal(8);
    // No raw path ever becomes a label.
    const routes = after.samples.flatMap((s) => s.labels.http_route ?? []);
    expect(routes.filter((r) => /\/(7|8|missing)\b/.test(r))).to.deep.equal([]);
  });

  it('counts every unknown path under one label, and unknown methods as _OTHER', async () => {
    const app = productsApp();
    const before = await scrape(metrics.port!);
    for (const path of ['/nowhere', '/a/b/c', '/v1/nothing/here', `/x${'y'.repeat(300)}`]) {
      await request(app).get(path).expect(404);
    }
    await request(app).purge('/v1/products').expect(404);
    const after = await scrape(metrics.port!);
    const moved = (method: string) =>
      count(after, 'unmatched', method, 404) - count(before, 'unmatched', method, 404);
    expect(moved('GET')).to.equal(4);
    expect(moved('_OTHER')).to.equal(1);
    expect(after.samples.some((s) => s.labels.http_request_method === 'PURGE')).to.equal(false);
  });

  it('answers 404 beside /metrics, and nothing is listened to once closed', async () => {
    const port = await freePort();
    const own = await startMetrics({ port, logger: silent, processMetrics: false });
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).to.equal(404);
    await own.close();
    await request(productsApp()).get('/v1/products').expect(200);
    expect(await own.text()).to.not.match(/http_route="\/v1\/products"/);
  });

  it('does nothing with port 0', async () => {
    const off = await startMetrics({ port: 0, logger: silent });
    expect(off.port).to.equal(undefined);
    expect(await off.text()).to.equal('');
    await off.close();
  });
});
