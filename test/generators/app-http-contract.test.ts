// The HTTP contract of a generated app, on SQLite, PostgreSQL and MySQL: the generated Product
// slice behind the app's own middlewares (templates/app/src/http/problems.ts). Unknown body
// properties and blank required text are 400 naming them, a body that is not JSON is 415, a known
// path asked with another method is 405 with Allow, and every problem has the one shape of
// docs/problems.md.
import { expect } from 'chai';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino, type Logger as AppLogger } from 'pino';
import request, { type Response } from 'supertest';
import { authenticate } from '@slicekit/runtime/auth';
import { RuleViolation } from '@slicekit/runtime/domain';
import {
  kindAnswersWith,
  problemKinds,
  statusTitle,
  type ProblemCode,
  type ProblemKind,
} from '@slicekit/runtime/http';
import { repoRoot, useScratchSlices } from '../support/scratch-slices.js';
import { describeEachDatabase } from '../support/services.js';

const slices = useScratchSlices('app-http-contract', [
  { specFile: join(repoRoot, 'docs/examples/product.yaml') },
]);
const unknownId = '00000000-0000-4000-8000-000000000000';

// The app's own middlewares, loaded by URL as test/generators/app-bad-input.test.ts does.
async function appMiddlewares() {
  const problems = (await import(
    pathToFileURL(join(repoRoot, 'templates/app/src/http/problems.ts')).href
  )) as {
    wrongMethod: RequestHandler;
    notFound: RequestHandler;
    problemHandler(logger: AppLogger): ErrorRequestHandler;
  };
  return problems;
}

/**
 * Checks `res` is a problem of kind `code` in the one shape: the standard members in order, the
 * kind's type, the status's reason phrase, the request's URL, then the kind's own members.
 */
function expectProblem(res: Response, code: ProblemCode, instance: string): void {
  const kind = problemKinds[code] as ProblemKind;
  expect(res.type, res.text).to.equal('application/problem+json');
  const body = res.body as Record<string, unknown>;
  expect(Object.keys(body).slice(0, 6), res.text).to.deep.equal([
    'type',
    'title',
    'status',
    'detail',
    'instance',
    'code',
  ]);
  expect(body, res.text).to.include({
    type: kind.type,
    title: statusTitle(res.status),
    status: res.status,
    instance,
    code,
  });
  expect(kindAnswersWith(code, res.status), `${code} ${res.status}`).to.equal(true);
  expect(body.detail).to.be.a('string').and.not.equal('');
  if (kind.extensions.length > 0) expect(body, code).to.include.keys(...kind.extensions);
}

describeEachDatabase('the HTTP contract of a generated app', (db) => {
  let app: Express;
  let count: () => Promise<number>;

  before(async () => {
    await slices.migrate(db.knex);
    const { wrongMethod, notFound, problemHandler } = await appMiddlewares();
    app = express();
    app.use(express.json());
    app.use(authenticate({ jwtSecret: 'a-secret-of-at-least-thirty-two-bytes!!' }));
    const v1 = express.Router();
    await slices.mount(v1, db.knex);
    v1.get('/boom', () => {
      throw new Error('an unexpected failure');
    });
    // A route of the user's own whose entity refuses a change.
    v1.post('/rules/:status', (req) => {
      const status = req.params.status === '422' ? 422 : 409;
      throw new RuleViolation('order.place.status', 'Place needs status draft', { status });
    });
    app.use('/v1', v1);
    app.use(wrongMethod);
    app.use(notFound);
    app.use(problemHandler(pino({ level: 'silent' })));
    count = async () => Number((await db.knex('products').count({ n: '*' }))[0]!.n);
  });

  const create = async () => {
    const res = await request(app).post('/v1/products').send({ name: 'Lamp', price: 24.99 });
    expect(res.status, res.text).to.equal(201);
    return res.body.id as string;
  };

  describe('unknown body properties', () => {
    it('refuses a create naming each unknown property, storing nothing', async () => {
      const before = await count();
      const res = await request(app)
        .post('/v1/products')
        .send({ name: 'Lamp', price: 5, isVip: true, id: unknownId, createdBy: 'mallory' });
      expect(res.status).to.equal(400);
      expectProblem(res, 'crud.invalid_request', '/v1/products');
      expect(res.body.detail).to.equal('the request is invalid: isVip, id, createdBy');
      expect(res.body.errors).to.deep.equal(
        ['isVip', 'id', 'createdBy'].map((field) => ({
          field,
          message: 'is not a property of this request; remove it',
          keyword: 'additionalProperties',
        })),
      );
      expect(await count()).to.equal(before);
    });

    it('refuses a misspelled property of an update and of an action, changing nothing', async () => {
      const id = await create();
      const update = await request(app).put(`/v1/products/${id}`).send({ prize: 3 });
      expect(update.status).to.equal(400);
      expect(update.body.errors.map((e: { field: string }) => e.field)).to.have.members([
        'prize',
        'price',
      ]);
      const action = await request(app)
        .put(`/v1/products/${id}/discontinue`)
        .send({ isDiscontinued: false });
      expect(action.status).to.equal(400);
      expect(action.body.errors[0]).to.include({ field: 'isDiscontinued' });
      const stored = await request(app).get(`/v1/products/${id}`);
      expect(stored.body).to.include({ price: 24.99, isDiscontinued: false });
    });
  });

  describe('blank required text', () => {
    it('refuses a name of blanks on create and a byUser of blanks on an action', async () => {
      const before = await count();
      const created = await request(app).post('/v1/products').send({ name: '   ', price: 5 });
      expect(created.status).to.equal(400);
      expectProblem(created, 'crud.invalid_request', '/v1/products');
      expect(created.body.errors).to.deep.equal([
        { field: 'name', message: 'must not be blank', keyword: 'x-not-blank' },
      ]);
      expect(await count()).to.equal(before);
      const id = await create();
      const approved = await request(app)
        .post(`/v1/products/${id}/approval`)
        .send({ byUser: '\t \n' });
      expect(approved.status).to.equal(400);
      expect(approved.body.errors).to.deep.equal([
        { field: 'byUser', message: 'must not be blank', keyword: 'x-not-blank' },
      ]);
    });

    it('keeps text with blanks around it as sent', async () => {
      const res = await request(app).post('/v1/products').send({ name: ' Desk lamp ', price: 5 });
      expect(res.status).to.equal(201);
      expect(res.body.name).to.equal(' Desk lamp ');
    });
  });

  describe('a body that is not JSON', () => {
    it('answers 415 on a create, an update and an action, with Accept', async () => {
      const id = await create();
      const before = await count();
      for (const [method, path] of [
        ['post', '/v1/products'],
        ['put', `/v1/products/${id}`],
        ['post', `/v1/products/${id}/approval`],
        ['put', `/v1/products/${id}/discontinue`],
      ] as const) {
        const sent = request(app)[method](path);
        const res = await sent.set('content-type', 'text/plain').send('email=a@b.test');
        expect(res.status, `${method} ${path}`).to.equal(415);
        expect(res.headers.accept).to.equal('application/json');
        expectProblem(res, 'http.unsupported_media_type', path);
        expect(res.body).to.include({ contentType: 'text/plain' });
      }
      expect(await count()).to.equal(before);
      const stored = await request(app).get(`/v1/products/${id}`);
      expect(stored.body).to.include({ price: 24.99, isDiscontinued: false, updatedBy: '' });
    });

    it('leaves routes without a body alone', async () => {
      const id = await create();
      const read = await request(app)
        .get(`/v1/products/${id}`)
        .set('content-type', 'text/plain')
        .send('hello');
      expect(read.status).to.equal(200);
      const deleted = await request(app)
        .delete(`/v1/products/${id}`)
        .set('content-type', 'text/plain')
        .send('hello');
      expect(deleted.status).to.equal(204);
    });
  });

  describe('a known path with another method', () => {
    it('answers 405 with Allow listing the methods of the path', async () => {
      const id = await create();
      for (const [method, path, allow] of [
        ['patch', `/v1/products/${id}`, 'DELETE, GET, HEAD, PUT'],
        ['delete', '/v1/products', 'GET, HEAD, POST'],
        ['get', `/v1/products/${id}/approval`, 'POST'],
        ['post', `/v1/products/${id}/discontinue`, 'PUT'],
      ] as const) {
        const res = await request(app)[method](path);
        expect(res.status, `${method} ${path}`).to.equal(405);
        expect(res.headers.allow).to.equal(allow);
        expectProblem(res, 'http.method_not_allowed', path);
        expect(res.body.allowed).to.deep.equal(allow.split(', '));
      }
      const stored = await request(app).get(`/v1/products/${id}`);
      expect(stored.status).to.equal(200);
    });

    it('still answers 404 to a path no route has', async () => {
      const res = await request(app).patch('/v1/customers/1');
      expect(res.status).to.equal(404);
      expectProblem(res, 'http.not_found', '/v1/customers/1');
    });
  });

  describe('every problem in one shape', () => {
    it("answers a rule violation thrown in a route of the user's own as the slices do", async () => {
      for (const status of [409, 422]) {
        const res = await request(app).post(`/v1/rules/${status}`);
        expect(res.status, res.text).to.equal(status);
        expect(res.body).to.include({
          code: 'crud.rule_violation',
          rule: 'order.place.status',
          detail: 'Place needs status draft',
        });
      }
    });

    it('gives the parser, the router, the slice, the list and the app the same members', async () => {
      const id = await create();
      const cases: [Promise<Response>, ProblemCode, string][] = [
        [
          request(app)
            .post('/v1/products')
            .set('content-type', 'application/json')
            .send('{"name": '),
          'http.malformed_json',
          '/v1/products',
        ],
        [
          request(app)
            .post('/v1/products?x=1')
            .send({ name: 'x'.repeat(200_000), price: 1 }),
          'http.body_too_large',
          '/v1/products?x=1',
        ],
        [
          request(app)
            .post('/v1/products')
            .set('content-type', 'application/json; charset=latin2')
            .send('{}'),
          'http.unsupported_body',
          '/v1/products',
        ],
        [request(app).get('/v1/products/%'), 'http.malformed_path', '/v1/products/%'],
        [request(app).get('/v1/nothing'), 'http.not_found', '/v1/nothing'],
        [request(app).get('/v1/boom'), 'http.internal_error', '/v1/boom'],
        [request(app).post('/v1/rules/409'), 'crud.rule_violation', '/v1/rules/409'],
        [request(app).post('/v1/rules/422'), 'crud.rule_violation', '/v1/rules/422'],
        [
          request(app).get('/v1/products/not-a-uuid'),
          'crud.invalid_request',
          '/v1/products/not-a-uuid',
        ],
        [
          request(app).get(`/v1/products/${unknownId}`),
          'crud.not_found',
          `/v1/products/${unknownId}`,
        ],
        [
          request(app).put(`/v1/products/${id}`).set('if-match', '"stale"').send({ price: 3 }),
          'crud.precondition_failed',
          `/v1/products/${id}`,
        ],
        [
          request(app).get('/v1/products?filter=nope:Equal:1'),
          'list_query.invalid',
          '/v1/products?filter=nope:Equal:1',
        ],
        [
          request(app).get('/v1/products').set('authorization', 'Bearer not.a.token'),
          'auth.unauthorized',
          '/v1/products',
        ],
      ];
      for (const [sent, code, instance] of cases) expectProblem(await sent, code, instance);
    });
  });
});
