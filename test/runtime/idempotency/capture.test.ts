// Where the recorder sits in the response path: it records what the handler wrote, whatever else
// wraps the response, in sub-apps too, and leaves the app's unguarded responses as they were.
import { expect } from 'chai';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { requiredIdempotentKey } from '@slicekit/runtime/idempotency';
import { counting, guardedApp } from './support/app.js';

/**
 * A response-transforming middleware of the kind compression is: it replaces `res.write` and
 * `res.end` on the response itself and rewrites every chunk on its way out (here, it brackets it).
 */
function bracketing(_req: Request, res: Response, next: NextFunction): void {
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => Response;
  const bracket = (chunk: unknown) =>
    typeof chunk === 'string' || Buffer.isBuffer(chunk) ? `[${chunk.toString()}]` : chunk;
  res.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(bracket(chunk), ...rest)) as Response['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    // The body length changes with the transform, so the length Express computed is dropped.
    if (!res.headersSent) res.removeHeader('Content-Length');
    return end(bracket(chunk), ...rest);
  }) as Response['end'];
  next();
}

/** Sends one key twice to `path`: the first runs (201), the second replays it. */
async function expectReplay(app: Express, path: string): Promise<void> {
  const first = await request(app).post(path).set('X-Idempotency-Key', 'k1').expect(201);
  const again = await request(app).post(path).set('X-Idempotency-Key', 'k1').expect(201);
  expect(again.text).to.equal(first.text);
  expect(again.headers['idempotent-replayed']).to.equal('true');
}

/** The response body as bytes, whatever its content type (a supertest parser). */
function rawBody(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('idempotency guard: recording the response', () => {
  it('replays string bodies as the bytes first sent, in whatever encoding and pieces they were written', async () => {
    const written: [path: string, write: (res: Response) => void, bytes: Buffer][] = [
      ['/send', (res) => res.send('héllo 注文 😀'), Buffer.from('héllo 注文 😀', 'utf8')],
      ['/json', (res) => res.json({ note: 'café ☕' }), Buffer.from('{"note":"café ☕"}', 'utf8')],
      ['/write-then-end', (res) => (res.write('注文'), res.end()), Buffer.from('注文', 'utf8')],
      ['/end-utf-8', (res) => res.end('ünï', 'utf-8'), Buffer.from('ünï', 'utf8')],
      ['/latin1', (res) => res.end('caf\u00e9', 'latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9])],
      ['/hex', (res) => res.end('c3a9ff', 'hex'), Buffer.from([0xc3, 0xa9, 0xff])],
      [
        '/strings-and-bytes',
        (res) => (res.write('é'), res.write(Buffer.from([0xff])), res.end('ü', 'latin1')),
        Buffer.from([0xc3, 0xa9, 0xff, 0xfc]),
      ],
    ];
    const { app, runs } = await guardedApp(
      (app, runs) => {
        for (const [path, write] of written) {
          app.post(path, requiredIdempotentKey(), (_req, res) => {
            runs.hit(path);
            res.status(201).type('application/octet-stream');
            write(res);
          });
        }
      },
      (options) => (options.conflictHandling = 'CachedResult'),
    );
    for (const [path, , bytes] of written) {
      for (const attempt of ['first', 'replay']) {
        const res = await request(app)
          .post(path)
          .set('X-Idempotency-Key', 'k1')
          .buffer(true)
          .parse(rawBody)
          .expect(201);
        expect((res.body as Buffer).toString('hex'), `${path}, ${attempt}`).to.equal(
          bytes.toString('hex'),
        );
        expect(res.headers['idempotent-replayed']).to.equal(
          attempt === 'replay' ? 'true' : undefined,
        );
      }
      expect(runs.of(path), path).to.equal(1);
    }
  });

  it('records the handler body, not what a wrapping middleware sent, and replays through it', async () => {
    const { app, runs } = await guardedApp(
      (app, runs) => {
        app.post('/bracketed', bracketing, requiredIdempotentKey(), (_req, res) => {
          res
            .status(201)
            .type('text/plain')
            .send(`run ${runs.hit('bracketed')} done`);
        });
      },
      (options) => (options.conflictHandling = 'CachedResult'),
    );
    const first = await request(app).post('/bracketed').set('X-Idempotency-Key', 'k1').expect(201);
    const again = await request(app).post('/bracketed').set('X-Idempotency-Key', 'k1').expect(201);
    expect(first.text).to.equal('[run 1 done]');
    // Had the recorder kept the transformed bytes, the replay would be transformed twice; it
    // keeps the handler's bytes, so the replay passes the middleware once, like the original.
    expect(again.text).to.equal('[run 1 done]');
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(runs.of('bracketed')).to.equal(1);
  });

  it('records and replays a guarded route of a mounted sub-app', async () => {
    const { app, runs } = await guardedApp(
      (app, runs) => {
        const admin = express();
        admin.use(express.json());
        admin.post('/orders', requiredIdempotentKey(), counting(runs, 'admin'));
        app.use('/admin', admin);
      },
      (options) => (options.conflictHandling = 'CachedResult'),
    );
    await expectReplay(app, '/admin/orders');
    expect(runs.of('admin')).to.equal(1);
  });

  it('records a sub-app route that hands the request on to a route of the parent app', async () => {
    const { app, runs } = await guardedApp(
      (app, runs) => {
        const admin = express();
        admin.post('/orders', requiredIdempotentKey(), (_req, _res, next) => next());
        app.use('/admin', admin);
        app.post('/admin/orders', counting(runs, 'parent'));
      },
      (options) => (options.conflictHandling = 'CachedResult'),
    );
    await expectReplay(app, '/admin/orders');
    expect(runs.of('parent')).to.equal(1);
  });

  it('leaves unguarded routes of the same app untouched, chunks, callbacks and all', async () => {
    const { app, runs } = await guardedApp((app, runs) => {
      app.post('/guarded', requiredIdempotentKey(), counting(runs, 'guarded'));
      app.post('/open', (_req, res) => {
        runs.hit('open');
        res.status(200).type('text/plain');
        res.write('one,', 'utf8', () => {
          res.end(Buffer.from('two'), () => runs.hit('open-finished'));
        });
      });
    });
    // The guarded route runs first, so the response path is the one the guard set up.
    await request(app).post('/guarded').set('X-Idempotency-Key', 'k1').expect(201);
    for (const key of ['k1', 'k1', undefined]) {
      const call = request(app).post('/open');
      const res = await (key ? call.set('X-Idempotency-Key', key) : call).expect(200);
      expect(res.text).to.equal('one,two');
      expect(res.headers['idempotent-replayed']).to.equal(undefined);
    }
    expect(runs.of('open')).to.equal(3);
    expect(runs.of('open-finished')).to.equal(3);
  });
});
