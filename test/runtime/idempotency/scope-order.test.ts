// The caller scope is never resolved before authentication: start-up refuses a guarded route that
// authenticates after its guard, and an authentication start-up cannot recognise fails the
// request (500) before the handler runs, so one caller is never served another's response.
import { expect } from 'chai';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { authenticate } from '@slicekit/runtime/auth';
import {
  addIdempotentKey,
  IdempotencyConfigError,
  markAuthentication,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type IdempotencyOptions,
} from '@slicekit/runtime/idempotency';

const KEY = 'X-Idempotency-Key';

/** Sets `req.user` from an `X-User` header; its name is not one start-up recognises. */
function headerUser(req: Request, _res: Response, next: NextFunction): void {
  const id = req.get('x-user');
  if (id) req.user = { id };
  next();
}

/** The same under another name, for marking (a mark stays on the function it is given). */
function apiKeyAuth() {
  return function apiKeyAuth(req: Request, res: Response, next: NextFunction) {
    headerUser(req, res, next);
  };
}

/** The same, named as Passport names its middleware. */
function authenticatePassportStyle() {
  return function authenticate(req: Request, res: Response, next: NextFunction) {
    headerUser(req, res, next);
  };
}

let runs = 0;
function create(req: Request, res: Response): void {
  runs += 1;
  res.status(201).json({ owner: req.user?.id ?? null, run: runs });
}

async function startError(build: (app: express.Express) => void): Promise<unknown> {
  const app = express();
  addIdempotentKey(app, (o) => (o.logger = silentLogger));
  build(app);
  return prepareApp(app).then(
    () => undefined,
    (error: unknown) => error,
  );
}

function expectRefusal(error: unknown, ...phrases: RegExp[]): void {
  expect(error).to.be.instanceOf(IdempotencyConfigError);
  expect(error).to.have.property('code', 'idempotency_scope_before_authentication');
  const message = String((error as Error).message);
  expect(message).to.match(/requiredIdempotentKey\(\), handler\)/);
  for (const phrase of phrases) expect(message).to.match(phrase);
}

async function cachedApp(build: (app: express.Express) => void) {
  const app = express();
  app.set('env', 'test'); // Express's default error handler then prints no stack per 500
  app.use(express.json());
  addIdempotentKey(app, (o: IdempotencyOptions) => {
    o.logger = silentLogger;
    o.conflictHandling = 'CachedResult';
  });
  build(app);
  await prepareApp(app);
  return app;
}

describe('idempotency guard: scope after authentication', () => {
  beforeEach(() => (runs = 0));

  it('refuses to start when a route runs authenticate() after its own guard', async () => {
    const error = await startError((app) => {
      app.post('/orders', requiredIdempotentKey(), authenticate({}), create);
    });
    expectRefusal(error, /^POST \/orders authenticates \(authenticateRequest\)/);
  });

  it('refuses to start when a group covers a route whose own handlers authenticate', async () => {
    const error = await startError((app) => {
      const orders = Router();
      requiredIdempotentKey(orders);
      orders.post('/', authenticatePassportStyle(), create);
      app.use('/orders', orders);
    });
    expectRefusal(error, /POST \/orders authenticates \(authenticate\)/, /group/);
  });

  it('recognises middleware marked with markAuthentication()', async () => {
    const error = await startError((app) => {
      app.post('/orders', requiredIdempotentKey(), markAuthentication(apiKeyAuth()), create);
    });
    expectRefusal(error, /apiKeyAuth/);
  });

  it('starts when authentication runs first: in the route, on the router or on the app', async () => {
    for (const build of [
      (app: express.Express) =>
        app.post('/orders', authenticate({}), requiredIdempotentKey(), create),
      (app: express.Express) => {
        const orders = Router();
        orders.use(authenticatePassportStyle());
        requiredIdempotentKey(orders);
        orders.post('/', create);
        app.use('/orders', orders);
      },
      (app: express.Express) => {
        app.use(markAuthentication(apiKeyAuth()));
        requiredIdempotentKey(app);
        app.post('/orders', create);
      },
    ]) {
      expect(await startError(build)).to.equal(undefined);
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

  it('fails with 500 and runs no handler when unrecognised authentication follows the guard', async () => {
    const app = await cachedApp((app) => {
      const orders = Router();
      requiredIdempotentKey(orders);
      // A group guard runs first among the route's handlers; headerUser authenticates after it.
      orders.post('/', headerUser, create);
      app.use('/orders', orders);
    });
    const as = (user: string) =>
      request(app).post('/orders').set(KEY, 'k').set('X-User', user).send({ amount: 1 });
    expect((await as('alice')).status).to.equal(500);
    // Bob is never served a response recorded for alice under an anonymous scope.
    expect((await as('bob')).status).to.equal(500);
    expect(runs).to.equal(0);
    // The reservation was released: an anonymous caller (nothing authenticates) is served.
    const anonymous = await request(app).post('/orders').set(KEY, 'k').send({ amount: 1 });
    expect(anonymous.status).to.equal(201);
    expect(runs).to.equal(1);
  });

  it('passes requests through untouched by the check when the caller stays the same', async () => {
    const app = await cachedApp((app) => {
      app.use(headerUser);
      app.post('/orders', requiredIdempotentKey(), express.json(), create);
    });
    const first = await request(app).post('/orders').set(KEY, 'k').set('X-User', 'carol').send({});
    const again = await request(app).post('/orders').set(KEY, 'k').set('X-User', 'carol').send({});
    expect([first.status, again.status]).to.deep.equal([201, 201]);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(runs).to.equal(1);
  });

  it('keeps the name start-up recognises slicekit authentication by', () => {
    expect(authenticate({}).name).to.equal('authenticateRequest');
  });
});
