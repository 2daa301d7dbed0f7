// Bad input and logs in a generated app, on SQLite, PostgreSQL and MySQL: the generated Product
// slice behind the app's own request log and problem handler (templates/app/src/http) and a pino
// logger built like the app's. Malformed paths, NUL characters and oversized bodies answer 4xx
// problem+json, never 500; logs carry no row values and no secret query parameters.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino, type Logger as AppLogger } from 'pino';
import request from 'supertest';
import { HttpProblemCode } from '@slicekit/runtime/http';
import { recordFailedStatements, REDACTED, safeLoggerOptions } from '@slicekit/runtime/logging';
import { repoRoot, useScratchSlices } from '../support/scratch-slices.js';
import { describeEachDatabase } from '../support/services.js';

const root = repoRoot;
const slices = useScratchSlices('app-bad-input', [
  { specFile: join(root, 'docs/examples/product.yaml') },
]);

// Values no SQL keyword or code contains, so finding one in a log line means it leaked.
const EMAIL = 'quokka-orbit@example.test';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.Zm9vYmFy.c2VjcmV0';

// The app's own middlewares, loaded by URL: their `Logger` type comes from the app's logger.ts,
// which reads the generated config.ts, so the compiler cannot follow them from here.
async function appMiddlewares() {
  const http = join(root, 'templates/app/src/http');
  const problems = (await import(pathToFileURL(join(http, 'problems.ts')).href)) as {
    notFound: RequestHandler;
    problemHandler(logger: AppLogger): ErrorRequestHandler;
  };
  const log = (await import(pathToFileURL(join(http, 'request-log.ts')).href)) as {
    requestLog(logger: AppLogger): RequestHandler;
  };
  return { ...problems, ...log };
}

interface LogLine {
  level: number;
  msg: string;
  url?: string;
  status?: number;
  err?: Record<string, unknown>;
}

describeEachDatabase('a generated app given bad input', (db) => {
  let app: Express;
  const lines: string[] = [];
  const logged = (): LogLine[] => lines.map((line) => JSON.parse(line) as LogLine);

  before(async () => {
    await slices.migrate(db.knex);
    await db.knex.schema.createTable('bad_input_people', (t) => {
      t.increments('id');
      t.string('email', 60).notNullable().unique();
    });
    // As the app's db.ts and logger.ts do.
    const knex = recordFailedStatements(db.knex);
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').trim().split('\n'));
        done();
      },
    });
    const logger = pino({ level: 'info', ...safeLoggerOptions() }, stream);

    const { notFound, problemHandler, requestLog } = await appMiddlewares();
    app = express();
    app.use(requestLog(logger));
    app.use(express.json());
    const v1 = express.Router();
    await slices.mount(v1, knex, logger);
    // A hand-written route whose insert fails on the database: a duplicate email.
    v1.post('/people', async (req, res) => {
      await knex('bad_input_people').insert({ email: req.body.email });
      await knex('bad_input_people').insert({ email: req.body.email });
      res.status(201).end();
    });
    app.use('/v1', v1);
    app.use(notFound);
    app.use(problemHandler(logger));
  });

  beforeEach(() => {
    lines.length = 0;
  });

  for (const path of ['/v1/products/%', '/v1/products/%E0%A4%A']) {
    for (const method of ['get', 'put', 'delete'] as const) {
      it(`answers ${method.toUpperCase()} ${path} with 400 http.malformed_path`, async () => {
        const res = await request(app)[method](path).send({ price: 2 });
        expect(res.status).to.equal(400);
        expect(res.type).to.equal('application/problem+json');
        expect(res.body).to.include({
          status: 400,
          title: 'Bad Request',
          code: HttpProblemCode.MalformedPath,
          instance: path,
        });
        expect(logged().filter((line) => line.level >= 50)).to.deep.equal([]);
      });
    }
  }

  it('refuses a NUL character in a body string with 400 naming the field, storing nothing', async () => {
    const created = await request(app)
      .post('/v1/products')
      .send({ name: 'Desk\u0000Lamp', price: 5 });
    expect(created.status).to.equal(400);
    expect(created.body).to.include({ code: 'crud.invalid_request' });
    expect(created.body.errors).to.deep.equal([
      {
        field: 'name',
        message: 'must not contain a NUL character (U+0000)',
        keyword: 'x-no-nul-character',
      },
    ]);
    const list = await request(app).get('/v1/products');
    expect(list.body.totalItemCount).to.equal(0);

    const product = await request(app).post('/v1/products').send({ name: 'Lamp', price: 5 });
    expect(product.status).to.equal(201);
    const approved = await request(app)
      .post(`/v1/products/${product.body.id}/approval`)
      .send({ byUser: 'ali\u0000ce' });
    expect(approved.status).to.equal(400);
    expect(approved.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['byUser']);
    const stored = await request(app).get(`/v1/products/${product.body.id}`);
    expect(stored.body.updatedBy).to.equal('');
  });

  it('refuses a NUL character in a filter or search with 400', async () => {
    for (const query of ['filter=name:Contains:a%00b', 'search=ab%00cd']) {
      const res = await request(app).get(`/v1/products?${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.type).to.equal('application/problem+json');
    }
  });

  it('answers a body over the limit with 413 "Content Too Large"', async () => {
    const res = await request(app)
      .post('/v1/products')
      .send({ name: 'x'.repeat(200_000), price: 1 });
    expect(res.status).to.equal(413);
    expect(res.body).to.include({
      title: 'Content Too Large',
      code: HttpProblemCode.BodyTooLarge,
    });
  });

  it('logs a database error by its code and statement, never the values, URL redacted', async () => {
    const res = await request(app)
      .post(`/v1/people?access_token=${TOKEN}&pageSize=2`)
      .send({ email: EMAIL });
    expect(res.status).to.equal(500);
    const all = lines.join('\n');
    expect(all).not.to.contain(EMAIL);
    expect(all).not.to.contain(TOKEN);
    const failed = logged().find((line) => line.msg === 'request failed');
    expect(failed?.url).to.equal(`/v1/people?access_token=${REDACTED}&pageSize=2`);
    expect(failed?.err).to.include({
      code: { sqlite: 'SQLITE_CONSTRAINT_UNIQUE', postgres: '23505', mysql: 'ER_DUP_ENTRY' }[
        db.dialect
      ],
    });
    expect(failed?.err?.statement).to.match(/^insert into .bad_input_people. \(.email.\) values/);
  });

  it('logs each request with secret query parameters redacted', async () => {
    const path = '/v1/products/00000000-0000-4000-8000-000000000000';
    const res = await request(app).get(`${path}?api_key=${TOKEN}&Access_Token=${TOKEN}&x=3`);
    expect(res.status).to.equal(404);
    const [line] = logged().filter((entry) => entry.msg === 'request');
    expect(line?.url).to.equal(`${path}?api_key=${REDACTED}&Access_Token=${REDACTED}&x=3`);
    expect(line?.status).to.equal(404);
    expect(lines.join('\n')).not.to.contain(TOKEN);
  });
});
