// The channel-fed counters: idempotency outcomes through a real guard on the memory store (each
// decision moves its own counter by one), and events delivered or refused as the relay reports them.
import { expect } from 'chai';
import { channel } from 'node:diagnostics_channel';
import request from 'supertest';
import { requiredIdempotentKey } from '@slicekit/runtime/idempotency';
import { startMetrics, type Metrics } from '@slicekit/runtime/metrics';
import { guardedApp } from '../idempotency/support/app.js';
import { freePort, sampleValue, scrape } from '../../support/prometheus-text.js';

const silent = { info() {}, warn() {} };
const outcomes = ['new', 'replayed', 'conflict', 'key_reused'] as const;

describe('metrics: idempotency outcomes', () => {
  let metrics: Metrics;
  before(async () => {
    metrics = await startMetrics({ port: await freePort(), logger: silent, processMetrics: false });
  });
  after(() => metrics.close());

  const counts = async () => {
    const e = await scrape(metrics.port!);
    return Object.fromEntries(
      outcomes.map((o) => [
        o,
        sampleValue(e, 'slicekit_idempotency_requests_total', { outcome: o }),
      ]),
    );
  };

  it('counts new, replayed, conflict and key_reused, one per decision', async () => {
    const { app } = await guardedApp(
      (a, runs) => {
        a.post('/orders', requiredIdempotentKey(), (_req, res) => {
          const run = runs.hit('orders');
          setTimeout(() => res.status(201).json({ run }), run === 2 ? 150 : 0);
        });
      },
      (o) => (o.conflictHandling = 'CachedResult'),
    );
    const before = await counts();
    const post = (key: string, body: object) =>
      request(app).post('/orders').set('X-Idempotency-Key', key).send(body);

    await post('k1', { n: 1 }).expect(201); // new
    await post('k1', { n: 1 }).expect(201); // replayed
    await post('k1', { n: 2 }).expect(422); // key reused for another request
    // A duplicate while the first is still in flight: 409.
    const slow = post('k2', { n: 1 }).then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await post('k2', { n: 1 }).expect(409);
    expect((await slow).status).to.equal(201); // new

    const after = await counts();
    const moved = Object.fromEntries(outcomes.map((o) => [o, after[o]! - before[o]!]));
    expect(moved).to.deep.equal({ new: 2, replayed: 1, conflict: 1, key_reused: 1 });
  });
});

describe('metrics: events published and failed', () => {
  it('counts each report of the relay by event name', async () => {
    const metrics = await startMetrics({
      port: await freePort(),
      logger: silent,
      processMetrics: false,
    });
    try {
      const published = channel('slicekit:events:published');
      const failed = channel('slicekit:events:failed');
      published.publish({ name: 'ProductCreated' });
      published.publish({ name: 'ProductCreated' });
      published.publish({ name: 'ProductApproved' });
      failed.publish({ name: 'ProductCreated' });
      const e = await scrape(metrics.port!);
      const of = (name: string, event: string) => sampleValue(e, name, { event_name: event });
      expect(of('slicekit_events_published_total', 'ProductCreated')).to.equal(2);
      expect(of('slicekit_events_published_total', 'ProductApproved')).to.equal(1);
      expect(of('slicekit_events_failed_total', 'ProductCreated')).to.equal(1);
      expect(e.types.get('slicekit_events_failed_total')).to.equal('counter');
    } finally {
      await metrics.close();
    }
  });
});
