// The caller scope is never kept for another caller: an authentication that runs after the guard
// fails the request at request time. `authenticate()` and middleware wrapped by
// `markAuthentication()` refuse before the handler runs; any other authentication is caught when
// the response ends, which is then a 500 and is not recorded.
import { expect } from 'chai';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { SignJWT } from 'jose';
import request from 'supertest';
import { authenticate } from '@slicekit/runtime/auth';
import {
  addIdempotentKey,
  markAuthentication,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type IdempotencyOptions,
} from '@slicekit/runtime/idempotency';

const KEY = 'X-Idempotency-Key';
const SECRET = 'a-secret-of-at-least-thirty-two-bytes!';

/** Sets `req.user` from an `X-User` header, saying nothing to the guard. */
function headerUser(req: Request, _res: Response, next: NextFunction): void {
  const id = req.get('x-user');
  if (id) req.user = { id };
  next();
}

let runs = 0;
function create(req: Request, res: Response): void {
  runs += 1;
  res.status(201).json({ owner: req.user?.id ?? null, run: runs });
}

async function cachedApp(build: (app: express.Express) => void) {
  const app = express();
  app.use(express.json());
  addIdempotentKey(app, (o: IdempotencyOptions) => {
    o.logger = silentLogger;
    o.conflictHandling = 'CachedResult';
  });
  build(app);
  app.use((error: Error & { code?: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ code: error.code });
  });
  await prepareApp(app);
  return app;
}

const token = (sub: string) =>
  new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

describe('idempotency guard: scope after authentication', () => {
  beforeEach(() => (runs = 0));

  it('fails with 500 and runs no handler when authenticate() follows the guard', async () => {
    const app = await cachedApp((app) => {
      app.post('/orders', requiredIdempotentKey(), authenticate({ jwtSecret: SECRET }), create);
    });
    const as = async (user: string) =>
      request(app)
        .post('/orders')
        .set(KEY, 'k')
        .set('Authorization', `Bearer ${await token(user)}`);
    const alice = await as('alice');
    expect([alice.status, alice.body.code]).to.deep.equal([
      500,
      'idempotency_scope_before_authentication',
    ]);
    expect((await as('bob')).status).to.equal(500);
    expect(runs).to.equal(0);
    // The reservation was released: an anonymous caller (still anonymous after it) is served.
    await request(app).post('/orders').set(KEY, 'k').expect(201);
  });

  it('fails with 500 and runs no handler when a markAuthentication() middleware follows a group guard', async () => {
    const app = await cachedApp((app) => {
      const orders = Router();
      requiredIdempotentKey(orders);
      orders.post('/', markAuthentication(headerUser), create);
      app.use('/orders', orders);
    });
    const res = await request(app).post('/orders').set(KEY, 'k').set('X-User', 'alice');
    expect([res.status, res.body.code]).to.deep.equal([
      500,
      'idempotency_scope_before_authentication',
    ]);
    expect(runs).to.equal(0);
  });

  it('answers 500 and records nothing when another authentication follows the guard', async () => {
    const app = await cachedApp((app) => {
      const orders = Router();
      requiredIdempotentKey(orders);
      orders.post('/', headerUser, create);
      app.use('/orders', orders);
    });
    const as = (user: string) =>
      request(app).post('/orders').set(KEY, 'k').set('X-User', user).send({ amount: 1 });
    const alice = await as('alice');
    expect(alice.status).to.equal(500);
    expect(alice.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(alice.body.detail).to.match(/authenticated after the idempotency guard/);
    // Bob is never served a response recorded for alice under an anonymous scope.
    const bob = await as('bob');
    expect(bob.status).to.equal(500);
    expect(bob.body).to.not.have.property('owner');
    // The reservation was released: an anonymous caller (nothing authenticates) is served.
    const anonymous = await request(app).post('/orders').set(KEY, 'k').send({ amount: 1 });
    expect(anonymous.status).to.equal(201);
  });

  it('serves when authentication runs first: in the route, on the router or on the app', async () => {
    for (const build of [
      (app: express.Express) =>
        app.post('/orders', authenticate({ jwtSecret: SECRET }), requiredIdempotentKey(), create),
      (app: express.Express) => {
        const orders = Router();
        orders.use(authenticate({ jwtSecret: SECRET }));
        requiredIdempotentKey(orders);
        orders.post('/', create);
        app.use('/orders', orders);
      },
      (app: express.Express) => {
        app.use(markAuthentication(authenticate({ jwtSecret: SECRET })));
        requiredIdempotentKey(app);
        app.post('/orders', create);
      },
    ]) {
      const app = await cachedApp(build);
      const bearer = `Bearer ${await token('dana')}`;
      const first = await request(app).post('/orders').set(KEY, 'k').set('Authorization', bearer);
      const again = await request(app).post('/orders').set(KEY, 'k').set('Authorization', bearer);
      expect([first.status, again.status, first.body.owner]).to.deep.equal([201, 201, 'dana']);
      expect(again.headers['idempotent-replayed']).to.equal('true');
    }
  });

  it('serves each caller its own response when authentication runs first (CachedResult)', async () => {
    const app = await cachedApp((app) => {
      const orders = Router();
      orders.use(headerUser);
      requiredIdempotentKey(orders);
      orders.post('/', create);
      app.use('/orders', orders);
    });
    const as = (user: string) =>
      request(app).post('/orders').set(KEY, 'k').set('X-User', user).send({ amount: 1 });
    expect((await as('alice')).body).to.deep.equal({ owner: 'alice', run: 1 });
    expect((await as('bob')).body).to.deep.equal({ owner: 'bob', run: 2 });
    expect((await as('alice')).body).to.deep.equal({ owner: 'alice', run: 1 });
  });

  it('passes requests through when the caller stays the same', async () => {
    const app = await cachedApp((app) => {
      app.use(headerUser);
      app.post('/orders', requiredIdempotentKey(), markAuthentication(headerUser), create);
    });
    const first = await request(app).post('/orders').set(KEY, 'k').set('X-User', 'carol').send({});
    const again = await request(app).post('/orders').set(KEY, 'k').set('X-User', 'carol').send({});
    expect([first.status, again.status]).to.deep.equal([201, 201]);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(runs).to.equal(1);
  });
});
