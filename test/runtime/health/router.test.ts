// The probe routes: liveness never touches a check; readiness runs every check in parallel within
// its bound, keeps 200 when only non-critical checks are down, answers 503 health.unready naming
// what is down (by reason, never by a driver's message) and 503 at once while draining.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { HealthCheckDown, healthRouter, type HealthCheck } from '@slicekit/runtime/health';

const up = (name: string, critical?: boolean): HealthCheck => ({
  name,
  critical,
  check: async () => undefined,
});
const down = (name: string, error: unknown, critical?: boolean): HealthCheck => ({
  name,
  critical,
  check: async () => {
    throw error;
  },
});

function appWith(
  checks: HealthCheck[],
  options: { timeoutMs?: number; draining?: () => boolean } = {},
) {
  const app = express();
  app.use(healthRouter({ checks, ...options }));
  return app;
}

describe('healthRouter', () => {
  it('answers /health/live with 200 without running any check', async () => {
    let ran = 0;
    const counted: HealthCheck = { name: 'database', check: async () => void ran++ };
    const res = await request(appWith([counted])).get('/health/live');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'up' });
    expect(res.headers['cache-control']).to.equal('no-store');
    expect(ran).to.equal(0);
  });

  it('answers /health/ready with 200 and every check when all are up', async () => {
    const res = await request(appWith([up('database'), up('idempotency')])).get('/health/ready');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      status: 'up',
      checks: [
        { name: 'database', status: 'up', critical: true },
        { name: 'idempotency', status: 'up', critical: true },
      ],
    });
  });

  it('keeps 200 when only a non-critical check is down, and reports it', async () => {
    const broker = down(
      'broker',
      Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED' }),
      false,
    );
    const res = await request(appWith([up('database'), broker])).get('/health/ready');
    expect(res.status).to.equal(200);
    expect(res.body.checks).to.deep.include({
      name: 'broker',
      status: 'down',
      critical: false,
      reason: 'ECONNREFUSED',
    });
  });

  it('answers 503 health.unready naming the critical checks that are down', async () => {
    const app = appWith([
      down('database', new HealthCheckDown('not migrated: 2 migrations are pending')),
      up('idempotency'),
      down('broker', new Error('gone'), false),
    ]);
    const res = await request(app).get('/health/ready');
    expect(res.status).to.equal(503);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.include({
      type: 'urn:slicekit:problem:unready',
      status: 503,
      code: 'health.unready',
      detail: 'not ready: database is down',
      instance: '/health/ready',
    });
    expect(res.body.checks).to.deep.equal([
      {
        name: 'database',
        status: 'down',
        critical: true,
        reason: 'not migrated: 2 migrations are pending',
      },
      { name: 'idempotency', status: 'up', critical: true },
      { name: 'broker', status: 'down', critical: false, reason: 'Error' },
    ]);
  });

  it('reports a check that does not answer within the bound as down (timeout), aborting its signal', async () => {
    let aborted: Promise<void> | undefined;
    const stalled: HealthCheck = {
      name: 'database',
      check: (signal) => {
        aborted = new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
        return new Promise(() => undefined);
      },
    };
    const res = await request(appWith([stalled, up('idempotency')], { timeoutMs: 50 })).get(
      '/health/ready',
    );
    expect(res.status).to.equal(503);
    expect(res.body.checks[0]).to.deep.equal({
      name: 'database',
      status: 'down',
      critical: true,
      reason: 'timeout',
    });
    await aborted;
  });

  it('never puts an error message in the body: a URL with a password stays out', async () => {
    const leaky = new Error('connect to postgres://app:hunter2@db.internal:5432/shop failed');
    const withCode = Object.assign(new Error('password authentication failed for hunter2'), {
      code: '28P01',
    });
    const odd = Object.assign(new Error('x'), { code: 'postgres://app:hunter2@db', name: 'a b' });
    const res = await request(
      appWith([down('database', leaky), down('store', withCode), down('other', odd, false)]),
    ).get('/health/ready');
    expect(res.status).to.equal(503);
    expect(res.text).not.to.contain('hunter2');
    expect(res.text).not.to.contain('db.internal');
    expect(res.body.checks.map((check: { reason: string }) => check.reason)).to.deep.equal([
      'Error',
      '28P01',
      'error',
    ]);
  });

  it('answers 503 at once while draining, without running the checks', async () => {
    let ran = 0;
    const counted: HealthCheck = { name: 'database', check: async () => void ran++ };
    const res = await request(appWith([counted], { draining: () => true })).get('/health/ready');
    expect(res.status).to.equal(503);
    expect(res.body).to.include({ code: 'health.unready', detail: 'the process is shutting down' });
    expect(res.body.checks).to.deep.equal([]);
    expect(ran).to.equal(0);
  });

  it('runs the checks in parallel, and probes arriving meanwhile share one run', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const gated = (name: string): HealthCheck => ({
      name,
      check: async () => {
        calls++;
        started.push(name);
        await gate;
      },
    });
    let arrived = 0;
    const app = express();
    app.use((_req, _res, next) => {
      arrived++;
      next();
    });
    app.use(healthRouter({ checks: [gated('a'), gated('b')] }));
    const server = app.listen(0);
    try {
      const probes = [1, 2, 3].map(() =>
        request(server)
          .get('/health/ready')
          .then((r) => r),
      );
      while (arrived < 3 || started.length < 2) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Both checks started before either finished: they run side by side.
      expect(started.sort()).to.deep.equal(['a', 'b']);
      release();
      const answers = await Promise.all(probes);
      expect(answers.map((res) => res.status)).to.deep.equal([200, 200, 200]);
      expect(calls, 'one run of each check for the three probes').to.equal(2);
    } finally {
      server.close();
    }
  });
});
