// Which outcomes are recorded: the inclusive status window plus extra statuses. Anything else,
// a thrown error releases the key at once, so the retry runs as new; a dropped connection does not.
// Store failures: while checking they reach the error handler (500); while recording they are
// logged and the client still gets the handler's response.
import { expect } from 'chai';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import {
  addIdempotentKeyWithStore,
  prepareApp,
  requiredIdempotentKey,
  type IdempotencyKeyStore,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { guardedApp, recordingLogger, Runs } from './support/app.js';

/** Answers the status in `?status=`; counts runs. */
function statusRoute(runs: Runs) {
  return (req: Request, res: Response) => {
    res.status(Number(req.query.status)).json({ run: runs.hit(String(req.query.status)) });
  };
}

async function statusApp(configure?: Parameters<typeof guardedApp>[1]) {
  return guardedApp((app, runs) => {
    app.post('/outcome', requiredIdempotentKey(), statusRoute(runs));
  }, configure);
}

async function twice(app: express.Express, status: number, key = `k-${status}`) {
  const send = () => request(app).post(`/outcome?status=${status}`).set('X-Idempotency-Key', key);
  return [await send(), await send()] as const;
}

describe('idempotency guard: cacheable outcomes', () => {
  for (const status of [200, 201, 299]) {
    it(`records a ${status}, so its duplicate is refused`, async () => {
      const { app, runs } = await statusApp();
      const [first, second] = await twice(app, status);
      expect(first.status).to.equal(status);
      expect(second.status).to.equal(409);
      expect(runs.of(String(status))).to.equal(1);
    });
  }

  for (const status of [302, 400, 404, 422, 500]) {
    it(`does not record a ${status}: the retry runs the handler again`, async () => {
      const { app, runs } = await statusApp();
      const [first, second] = await twice(app, status);
      expect(first.status).to.equal(status);
      expect(second.status).to.equal(status);
      expect(runs.of(String(status))).to.equal(2);
    });
  }

  it('records statuses listed in additionalCacheableStatusCodes', async () => {
    const { app, runs } = await statusApp(
      (o) => (o.additionalCacheableStatusCodes = new Set([404])),
    );
    const [, second] = await twice(app, 404);
    expect(second.status).to.equal(409);
    expect(runs.of('404')).to.equal(1);
  });

  it('uses a configured window, inclusive at both ends', async () => {
    const { app, runs } = await statusApp((o) => {
      o.minStatusCodeForCaching = 201;
      o.maxStatusCodeForCaching = 202;
    });
    expect((await twice(app, 200))[1].status).to.equal(200);
    expect((await twice(app, 201))[1].status).to.equal(409);
    expect((await twice(app, 202))[1].status).to.equal(409);
    expect((await twice(app, 203))[1].status).to.equal(203);
    expect([runs.of('200'), runs.of('201'), runs.of('202'), runs.of('203')]).to.deep.equal([
      2, 1, 1, 2,
    ]);
  });

  it('releases the key when the handler throws and the error handler answers an error', async () => {
    let calls = 0;
    const { app } = await guardedApp((app) => {
      app.post('/flaky', requiredIdempotentKey(), async (_req, res) => {
        calls += 1;
        if (calls === 1) throw new Error('first attempt fails');
        res.status(201).json({ calls });
      });
      app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
        // What the client gets decides: an error handler's 5xx is not recorded.
        res.status(503).json({ handled: err.message });
      });
    });
    const first = await request(app).post('/flaky').set('X-Idempotency-Key', 'k').expect(503);
    expect(first.body).to.deep.equal({ handled: 'first attempt fails' });
    const retry = await request(app).post('/flaky').set('X-Idempotency-Key', 'k').expect(201);
    expect(retry.body).to.deep.equal({ calls: 2 });
  });

  it('keeps the key in flight when the client disconnects while its handler still runs', async () => {
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    let disconnected!: () => void;
    const closed = new Promise<void>((resolve) => (disconnected = resolve));
    const { app, runs } = await guardedApp((app, runs) => {
      app.post('/slow', requiredIdempotentKey(), (req, res) => {
        runs.hit('slow');
        req.socket.on('close', disconnected);
        // The handler's side effects go on after the client gave up, then it answers.
        void finishing.then(() => res.status(201).json({ ok: true }));
      });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const aborted = request(server).post('/slow').set('X-Idempotency-Key', 'k').timeout(100);
      await aborted.then(
        () => expect.fail('the slow request answered'),
        () => undefined,
      );
      await closed;
      // The retry must not run the handler a second time while the first still runs.
      const retry = await request(server).post('/slow').set('X-Idempotency-Key', 'k').expect(409);
      expect(retry.body.state).to.equal('in-flight');
      expect(retry.headers['retry-after']).to.equal('1');
      finish();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const later = await request(server).post('/slow').set('X-Idempotency-Key', 'k').expect(409);
      expect(later.body.state).to.equal('completed');
      expect(runs.of('slow')).to.equal(1);
    } finally {
      server.close();
    }
  });
});

describe('idempotency guard: store failures', () => {
  type Failure = 'check' | 'record' | 'record-sync' | 'release-sync';

  function failing(what: Failure, timings: StoreTimings): IdempotencyKeyStore {
    const inner = new MemoryIdempotencyStore(timings);
    return {
      isKeyProcessed: (info) =>
        what === 'check' ? Promise.reject(new Error('store down')) : inner.isKeyProcessed(info),
      markKeyAsProcessed: (info, response) => {
        // A store that serializes before it returns its promise fails synchronously.
        if (what === 'record-sync') throw new TypeError(`cannot serialize ${response.statusCode}`);
        return Promise.reject(new Error('store write failed'));
      },
      releaseReservation: (info, token) => {
        if (what === 'release-sync') throw new Error('store delete failed');
        return inner.releaseReservation(info, token);
      },
    };
  }

  async function appOn(what: Failure, status = 201) {
    const app = express();
    app.set('env', 'test'); // keeps Express's default error handler from printing the 500
    const logger = recordingLogger();
    const runs = new Runs();
    addIdempotentKeyWithStore(
      app,
      (timings) => failing(what, timings),
      (o) => (o.logger = logger),
    );
    app.post('/orders', requiredIdempotentKey(), (_req, res) => {
      res.status(status).json({ run: runs.hit('orders') });
    });
    await prepareApp(app);
    return { app, logger, runs };
  }

  it('lets a failure while checking the key reach the error handler as a 500', async () => {
    const { app, runs } = await appOn('check');
    await request(app).post('/orders').set('X-Idempotency-Key', 'k').expect(500);
    expect(runs.of('orders')).to.equal(0);
  });

  it('logs a failure while recording and still sends the handler response', async () => {
    const { app, logger } = await appOn('record');
    const ok = await request(app).post('/orders').set('X-Idempotency-Key', 'rec-1').expect(201);
    expect(ok.body).to.deep.equal({ run: 1 });
    const errors = logger.entries.filter((e) => e.level === 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]!.obj).to.include({ idempotencyKey: 'rec-1', endpoint: '/ORDERS' });
    expect(logger.text()).to.contain('store write failed');
  });

  it('logs a store that throws while recording (serialization) and still sends the response', async () => {
    const { app, logger } = await appOn('record-sync');
    const ok = await request(app).post('/orders').set('X-Idempotency-Key', 'rec-2').expect(201);
    expect(ok.body).to.deep.equal({ run: 1 });
    const errors = logger.entries.filter((e) => e.level === 'error');
    expect(errors).to.have.length(1);
    expect(logger.text()).to.contain('cannot serialize 201');
  });

  it('logs a store that throws while releasing and still sends the response', async () => {
    const { app, logger } = await appOn('release-sync', 422);
    const res = await request(app).post('/orders').set('X-Idempotency-Key', 'rel-1').expect(422);
    expect(res.body).to.deep.equal({ run: 1 });
    expect(logger.text()).to.contain('store delete failed');
  });
});
