// Route coverage: one route, or every matching route of a router group, decided once at start
// from each route's declared verb; nested routers are covered, verb-less routes never are.
import { expect } from 'chai';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import {
  addIdempotentKey,
  addIdempotentKeyWithStore,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type IdempotentKeyInfo,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { counting, guardedApp, Runs } from './support/app.js';

const KEY = 'X-Idempotency-Key';

describe('idempotency guard: group coverage', () => {
  it('does not cover a route registered before the declaration, as any router middleware', async () => {
    const { app } = await guardedApp((app, runs) => {
      const group = Router();
      group.post('/before', counting(runs, 'before'));
      requiredIdempotentKey(group);
      app.use('/g', group);
    });
    await request(app).post('/g/before').expect(201);
  });

  it('answers 400 to a POST without a key under the group that no route handles, 404 with one', async () => {
    const { app } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group);
      group.post('/known', counting(runs, 'known'));
      app.use('/g', group);
    });
    await request(app).post('/g/unknown').expect(400);
    await request(app).post('/g/unknown').set(KEY, 'k').expect(404);
    // The 404 released the key.
    await request(app).post('/g/unknown').set(KEY, 'k').expect(404);
  });

  it('covers a POST route registered after the declaration', async () => {
    const { app, runs } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group);
      app.use('/g', group);
      group.post('/after', counting(runs, 'after'));
    });
    await request(app).post('/g/after').expect(400);
    await request(app).post('/g/after').set(KEY, 'k').expect(201);
    await request(app).post('/g/after').set(KEY, 'k').expect(409);
    expect(runs.of('after')).to.equal(1);
  });

  it('covers routes of nested routers at any depth with the same verbs', async () => {
    const { app } = await guardedApp((app, runs) => {
      const outer = Router();
      const middle = Router();
      const inner = Router();
      requiredIdempotentKey(outer, 'POST', 'DELETE');
      inner.post('/deep', counting(runs, 'deep-post'));
      inner.delete('/deep', counting(runs, 'deep-delete', 200));
      inner.put('/deep', counting(runs, 'deep-put', 200));
      middle.use('/m', inner);
      outer.use('/o', middle);
      app.use('/g', outer);
    });
    await request(app).post('/g/o/m/deep').expect(400);
    await request(app).delete('/g/o/m/deep').expect(400);
    await request(app).put('/g/o/m/deep').expect(200);
  });

  it('leaves GET, PUT and DELETE routes alone unless their verb is listed', async () => {
    const { app, runs } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group);
      group.get('/r', counting(runs, 'get', 200));
      group.put('/r', counting(runs, 'put', 200));
      group.delete('/r', counting(runs, 'delete', 200));
      group.post('/r', counting(runs, 'post'));
      app.use(group);
    });
    await request(app).get('/r').expect(200);
    await request(app).put('/r').expect(200);
    await request(app).delete('/r').expect(200);
    await request(app).post('/r').expect(400);
    expect(runs.of('post')).to.equal(0);
  });

  it('covers a request of a listed method whatever handles it, all() and use() included', async () => {
    const { app, runs } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group, 'POST');
      group.all('/any', counting(runs, 'all', 200));
      group.use('/mw', counting(runs, 'use', 200));
      app.use(group);
    });
    await request(app).post('/any').expect(400);
    await request(app).get('/any').expect(200);
    await request(app).post('/mw').expect(400);
    await request(app).post('/mw').set(KEY, 'k').expect(200);
    expect([runs.of('all'), runs.of('use')]).to.deep.equal([1, 1]);
  });

  it('matches verbs case-insensitively', async () => {
    const { app } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group, 'delete', 'Put');
      group.delete('/r', counting(runs, 'delete', 200));
      group.put('/r', counting(runs, 'put', 200));
      group.post('/r', counting(runs, 'post'));
      app.use(group);
    });
    await request(app).delete('/r').expect(400);
    await request(app).put('/r').expect(400);
    await request(app).post('/r').expect(201); // listing verbs replaces the POST default
  });

  it('covers every POST route of the app when the app itself is the group', async () => {
    const { app } = await guardedApp((app, runs) => {
      requiredIdempotentKey(app);
      app.post('/top', counting(runs, 'top'));
      const nested = Router();
      nested.post('/n', counting(runs, 'n'));
      app.use('/sub', nested);
    });
    await request(app).post('/top').expect(400);
    await request(app).post('/sub/n').expect(400);
  });

  it('keeps coverage when a method-override header names another verb', async () => {
    const { app, runs } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group);
      group.post('/r', counting(runs, 'post'));
      app.use(group);
    });
    await request(app).post('/r').set('X-HTTP-Method-Override', 'GET').expect(400);
    await request(app).post('/r').set('X-HTTP-Method-Override', 'GET').set(KEY, 'k').expect(201);
    await request(app).post('/r').set('X-HTTP-Method-Override', 'GET').set(KEY, 'k').expect(409);
    expect(runs.of('post')).to.equal(1);
  });

  it('keeps coverage when method-override middleware rewrites req.method', async () => {
    // What the method-override package does, from a header.
    const override = (req: Request, _res: Response, next: NextFunction) => {
      const verb = req.get('X-HTTP-Method-Override');
      if (verb) req.method = verb.toUpperCase();
      next();
    };
    const { app, runs } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group);
      // Rewritten inside the route, after routing chose it: the guard still runs.
      group.post('/inside', override, counting(runs, 'inside'));
      app.post('/declared', override, requiredIdempotentKey(), counting(runs, 'declared'));
      app.use('/i', group);
      // Rewritten before the group's guard: the request is a GET now and never reaches the POST
      // handler.
      const early = Router();
      early.use(override);
      requiredIdempotentKey(early);
      early.post('/early', counting(runs, 'early'));
      app.use('/g', early);
    });
    for (const path of ['/i/inside', '/declared']) {
      await request(app).post(path).set('X-HTTP-Method-Override', 'GET').expect(400);
      await request(app).post(path).set('X-HTTP-Method-Override', 'GET').set(KEY, 'k').expect(201);
      await request(app).post(path).set('X-HTTP-Method-Override', 'GET').set(KEY, 'k').expect(409);
    }
    await request(app).post('/g/early').set('X-HTTP-Method-Override', 'GET').expect(404);
    await request(app).post('/g/early').expect(400);
    expect([runs.of('inside'), runs.of('declared'), runs.of('early')]).to.deep.equal([1, 1, 0]);
  });

  it('leaves an uncovered route untouched: no header needed, a key sent has no effect', async () => {
    const { app, runs } = await guardedApp((app, runs) => {
      const group = Router();
      requiredIdempotentKey(group);
      group.post('/covered', counting(runs, 'covered'));
      app.use('/g', group);
      app.post('/free', counting(runs, 'free'));
    });
    await request(app).post('/free').expect(201);
    await request(app).post('/free').set(KEY, 'same').expect(201);
    const third = await request(app).post('/free').set(KEY, 'same').expect(201);
    expect(third.body).to.deep.equal({ route: 'free', run: 3 });
    expect(third.headers['idempotent-replayed']).to.equal(undefined);
    expect(runs.of('free')).to.equal(3);
  });

  it('guards a route covered by its group and by itself once', async () => {
    const { app, runs, logger } = await guardedApp(
      (app, runs) => {
        const group = Router();
        requiredIdempotentKey(group);
        group.post('/both', requiredIdempotentKey(), counting(runs, 'both'));
        app.use(group);
      },
      (o) => (o.conflictHandling = 'CachedResult'),
    );
    await request(app).post('/both').set(KEY, 'k').expect(201);
    const replay = await request(app).post('/both').set(KEY, 'k').expect(201);
    expect(replay.body).to.deep.equal({ route: 'both', run: 1 });
    expect(runs.of('both')).to.equal(1);
    const duplicates = logger.entries.filter((e) => e.level === 'debug');
    expect(duplicates).to.have.length(1);
  });

  it('stores one response for a route covered by two nested groups and by itself', async () => {
    let recorded = 0;
    let checked = 0;
    class CountingStore extends MemoryIdempotencyStore {
      constructor(timings: StoreTimings) {
        super(timings);
      }
      override isKeyProcessed(info: IdempotentKeyInfo) {
        checked += 1;
        return super.isKeyProcessed(info);
      }
      override markKeyAsProcessed(
        ...args: Parameters<MemoryIdempotencyStore['markKeyAsProcessed']>
      ) {
        recorded += 1;
        return super.markKeyAsProcessed(...args);
      }
    }
    const app = express();
    const runs = new Runs();
    addIdempotentKeyWithStore(app, CountingStore, (o) => (o.logger = silentLogger));
    const outer = Router();
    const inner = Router();
    requiredIdempotentKey(outer);
    requiredIdempotentKey(inner, 'post');
    inner.post('/thrice', requiredIdempotentKey(), counting(runs, 'thrice'));
    outer.use(inner);
    app.use(outer);
    await prepareApp(app);
    await request(app).post('/thrice').set(KEY, 'k').expect(201);
    expect([checked, recorded, runs.of('thrice')]).to.deep.equal([1, 1, 1]);
    await request(app).post('/thrice').set(KEY, 'k').expect(409);
    expect([checked, recorded, runs.of('thrice')]).to.deep.equal([2, 1, 1]);
  });

  it('drives a covered route with the same options as a declared one', async () => {
    const { app } = await guardedApp(
      (app, runs) => {
        const group = Router();
        requiredIdempotentKey(group);
        group.post('/', counting(runs, 'g'));
        app.use('/g', group);
        app.post('/d', requiredIdempotentKey(), counting(runs, 'd'));
      },
      (o) => (o.idempotencyHeaderKey = 'Idempotency-Key'),
    );
    for (const path of ['/g', '/d']) {
      const res = await request(app).post(path).set(KEY, 'k').expect(400);
      expect(res.body.header).to.equal('Idempotency-Key');
      await request(app).post(path).set('Idempotency-Key', 'k').expect(201);
    }
  });
});

describe('idempotency guard: wiring mistakes', () => {
  it('answers 500 from requiredIdempotentKey() mounted with use(), where no verb is declared', async () => {
    const app = express();
    app.set('env', 'test');
    addIdempotentKey(app, (o) => (o.logger = silentLogger));
    app.use(requiredIdempotentKey());
    const codes: unknown[] = [];
    app.use((error: { code?: string }, _req: Request, res: Response, _next: NextFunction) => {
      codes.push(error.code);
      res.sendStatus(500);
    });
    await request(app).post('/x').set(KEY, 'k').expect(500);
    expect(codes).to.deep.equal(['idempotency_guard_misplaced']);
  });

  it('answers 500 from a guarded route when no guard is registered', async () => {
    const app = express();
    app.post('/x', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    const codes: unknown[] = [];
    app.use((error: { code?: string }, _req: Request, res: Response, _next: NextFunction) => {
      codes.push(error.code);
      res.sendStatus(500);
    });
    expect(await prepareApp(app)).to.equal(undefined);
    await request(app).post('/x').set(KEY, 'k').expect(500);
    expect(codes).to.deep.equal(['idempotency_not_started']);
  });

  it('guards a route of an app that was never prepared: it prepares on its first request', async () => {
    const app = express();
    addIdempotentKey(app, (o) => (o.logger = silentLogger));
    app.post('/x', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    await request(app).post('/x').expect(400);
    await request(app).post('/x').set(KEY, 'k').expect(201);
    await request(app).post('/x').set(KEY, 'k').expect(409);
  });
});
