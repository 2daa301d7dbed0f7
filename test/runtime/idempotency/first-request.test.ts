// An app whose guard was registered but never prepared prepares itself on its first guarded
// request: concurrent first requests share one preparation, a preparation that fails serves no
// guarded request, and unguarded routes are served meanwhile.
import { expect } from 'chai';
import express, { Router } from 'express';
import request from 'supertest';
import {
  addIdempotentKey,
  addIdempotentKeyWithStore,
  closeIdempotency,
  IdempotencyProblemType,
  MEMORY_STORE_WARNING,
  requiredIdempotentKey,
  silentLogger,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { recordingLogger } from './support/app.js';

const KEY = 'X-Idempotency-Key';

function unpreparedApp(configure: Parameters<typeof addIdempotentKey>[1] = () => {}) {
  const app = express();
  const runs = { orders: 0, grouped: 0, health: 0 };
  addIdempotentKey(app, (o) => {
    o.logger = silentLogger;
    configure?.(o);
  });
  app.get('/health', (_req, res) => void res.json({ health: ++runs.health }));
  app.post('/orders', requiredIdempotentKey(), (_req, res) => {
    res.status(201).json({ run: ++runs.orders });
  });
  const grouped = Router();
  requiredIdempotentKey(grouped);
  grouped.post('/', (_req, res) => void res.status(201).json({ run: ++runs.grouped }));
  app.use('/grouped', grouped);
  return { app, runs };
}

describe('idempotency guard: an app never prepared', () => {
  it('prepares itself on its first request, so declared and group-covered routes are guarded', async () => {
    const { app, runs } = unpreparedApp();
    await request(app).post('/grouped').expect(400);
    await request(app).post('/grouped').set(KEY, 'k').expect(201);
    await request(app).post('/grouped').set(KEY, 'k').expect(409);
    await request(app).post('/orders').set(KEY, 'k').expect(201);
    await request(app).post('/orders').set(KEY, 'k').expect(409);
    expect([runs.grouped, runs.orders]).to.deep.equal([1, 1]);
  });

  it('prepares once for many concurrent first requests, and runs the handler once per key', async () => {
    let starts = 0;
    class CountingStore extends MemoryIdempotencyStore {
      constructor(timings: StoreTimings) {
        super(timings);
      }
      async start() {
        starts += 1;
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    }
    const app = express();
    let runs = 0;
    addIdempotentKeyWithStore(app, CountingStore, (o) => (o.logger = silentLogger));
    app.post('/orders', requiredIdempotentKey(), (_req, res) => {
      runs += 1;
      setTimeout(() => res.status(201).json({ runs }), 20);
    });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(app)
          .post('/orders')
          .set(KEY, 'same')
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).to.have.length(1);
    expect(statuses.filter((s) => s === 409)).to.have.length(19);
    expect([starts, runs]).to.deep.equal([1, 1]);
  });

  it('serves nothing while its store cannot start (503, Retry-After), then serves once it can', async () => {
    let failures = 1;
    class LateStore extends MemoryIdempotencyStore {
      constructor(timings: StoreTimings) {
        super(timings);
      }
      async start() {
        if (failures-- > 0) throw new Error('connection refused');
      }
    }
    const app = express();
    const logger = recordingLogger();
    let health = 0;
    addIdempotentKeyWithStore(app, LateStore, (o) => (o.logger = logger));
    app.get('/health', (_req, res) => void res.json({ health: ++health }));
    app.post('/orders', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    const refused = await request(app).post('/orders').set(KEY, 'k');
    expect(refused.status).to.equal(503);
    expect(refused.headers['retry-after']).to.equal('1');
    expect(refused.body).to.include({
      type: IdempotencyProblemType.notPrepared,
      instance: '/orders',
      code: 'idempotency.not_prepared',
    });
    expect(logger.text()).to.contain('connection refused');
    await request(app).get('/health').expect(200);
    expect(health).to.equal(1);
    await request(app).post('/orders').set(KEY, 'k').expect(201);
  });

  it('answers 500 to every guarded request when the options are invalid, and logs why', async () => {
    const logger = recordingLogger();
    const { app, runs } = unpreparedApp((o) => {
      o.logger = logger;
      o.expiration = 0;
    });
    for (const path of ['/orders', '/grouped']) {
      const res = await request(app).post(path).set(KEY, 'k');
      expect(res.status).to.equal(500);
      expect(res.body.type).to.equal(IdempotencyProblemType.notPrepared);
    }
    expect([runs.orders, runs.grouped]).to.deep.equal([0, 0]);
    await request(app).get('/health').expect(200);
    expect(logger.text()).to.contain('expiration must be a positive duration');
  });

  it('answers for a mounted sub-app whose guard cannot be prepared', async () => {
    const parent = express();
    const sub = express();
    addIdempotentKey(sub, (o) => {
      o.logger = silentLogger;
      o.cachePrefix = ' ';
    });
    sub.post('/x', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    parent.use('/sub', sub);
    const res = await request(parent).post('/sub/x').set(KEY, 'k').expect(500);
    expect(res.body).to.include({ code: 'idempotency.not_prepared', instance: '/sub/x' });
  });

  it('prepares again on the next request after closeIdempotency', async () => {
    const logger = recordingLogger();
    const { app } = unpreparedApp((o) => (o.logger = logger));
    await request(app).post('/orders').set(KEY, 'k').expect(201);
    await closeIdempotency(app);
    // A new start: a new memory store, so the key is new again; and the warning again.
    await request(app).post('/orders').set(KEY, 'k').expect(201);
    const warnings = logger.entries.filter((e) => e.msg === MEMORY_STORE_WARNING);
    expect(warnings).to.have.length(2);
  });
});
