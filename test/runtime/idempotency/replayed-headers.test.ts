// Replayed headers: a replay sends the recorded allow-listed headers again (a replayed 201 keeps
// its Location), byte for byte, and nothing outside the list.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Express, Response } from 'express';
import request from 'supertest';
import {
  DEFAULT_REPLAYED_HEADERS,
  OptionsValidationError,
  requiredIdempotentKey,
} from '@slicekit/runtime/idempotency';
import { guardedApp, type Runs } from './support/app.js';

const KEY = 'X-Idempotency-Key';

function routes(app: Express, runs: Runs): void {
  app.post('/orders', requiredIdempotentKey(), (_req, res) => {
    const run = runs.hit('orders');
    res
      .status(201)
      .location(`/orders/${run}`)
      .set('Content-Location', '/orders/caf\u00e9')
      .set('Last-Modified', 'Tue, 15 Nov 1994 08:12:31 GMT')
      .set('ETag', '"v1"')
      .set('X-Run', String(run))
      .set('Link', ['</orders?page=2>; rel="next"', '</terms>; rel="terms-of-service"'])
      .json({ id: run });
  });
  // The same non-ASCII header value written three ways: Node sends it as UTF-8 with a string body
  // in one write, as latin1 with a Buffer body or a chunked one. A replay must match each.
  const write = {
    string: (res: Response) => res.end('{"ok":true}'),
    buffer: (res: Response) => res.end(Buffer.from('{"ok":true}')),
    chunked: (res: Response) => {
      res.write('{"ok":');
      res.end('true}');
    },
  };
  for (const [how, send] of Object.entries(write)) {
    app.post(`/${how}`, requiredIdempotentKey(), (_req, res) => {
      runs.hit(how);
      res.status(201).setHeader('Location', '/caf\u00e9/\u00ff');
      res.setHeader('Content-Type', 'application/json');
      send(res);
    });
  }
  app.post('/numbers', requiredIdempotentKey(), (_req, res) => {
    runs.hit('numbers');
    res.setHeader('X-Count', 42);
    res.status(200).json({});
  });
}

/** The raw header lines of a response, as the bytes came over the wire (latin1). */
function rawHeaders(app: Express, key: string, path = '/orders'): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      const req = http.request(
        { port, host: '127.0.0.1', method: 'POST', path, headers: { [KEY]: key } },
        (res) => {
          res.resume();
          res.on('end', () => server.close(() => resolve(res.rawHeaders)));
        },
      );
      req.on('error', reject);
      req.end();
    });
  });
}

const pick = (raw: string[], names: string[]) => {
  const lines: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (names.includes(raw[i]!.toLowerCase())) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  return lines;
};

describe('idempotency guard: replayed headers', () => {
  it('replays Location, Content-Location, ETag, Last-Modified and Link by default, byte for byte', async () => {
    const { app, runs } = await guardedApp(routes, (o) => (o.conflictHandling = 'CachedResult'));
    const listed = ['location', 'content-location', 'etag', 'last-modified', 'link'];
    const first = pick(await rawHeaders(app, 'k'), listed);
    const replay = await rawHeaders(app, 'k');
    expect(first).to.have.length(6);
    expect(pick(replay, listed)).to.deep.equal(first);
    // res.json sends the header block with its string body as UTF-8: é is two bytes.
    expect(first).to.include(
      `Content-Location: ${Buffer.from('/orders/caf\u00e9').toString('latin1')}`,
    );
    expect(pick(replay, ['idempotent-replayed'])).to.deep.equal(['Idempotent-Replayed: true']);
    // X-Run is not listed: the replay does not carry it.
    expect(pick(replay, ['x-run'])).to.deep.equal([]);
    expect(runs.of('orders')).to.equal(1);
    expect([...DEFAULT_REPLAYED_HEADERS]).to.deep.equal([
      'Location',
      'Content-Location',
      'ETag',
      'Last-Modified',
      'Link',
    ]);
  });

  for (const [how, utf8] of [
    ['string', true],
    ['buffer', false],
    ['chunked', false],
  ] as const) {
    it(`replays a non-ASCII header value as the bytes Node first sent (${how} body)`, async () => {
      const { app, runs } = await guardedApp(routes, (o) => (o.conflictHandling = 'CachedResult'));
      const sent = Buffer.from('/caf\u00e9/\u00ff', utf8 ? 'utf8' : 'latin1').toString('latin1');
      const first = pick(await rawHeaders(app, how, `/${how}`), ['location']);
      const replay = pick(await rawHeaders(app, how, `/${how}`), ['location']);
      expect(first).to.deep.equal([`Location: ${sent}`]);
      expect(replay).to.deep.equal(first);
      expect(runs.of(how)).to.equal(1);
    });
  }

  it('gives a replayed 201 its Location, so the client learns the new id', async () => {
    const { app } = await guardedApp(routes, (o) => (o.conflictHandling = 'CachedResult'));
    const first = await request(app).post('/orders').set(KEY, 'k').send({}).expect(201);
    const again = await request(app).post('/orders').set(KEY, 'k').send({}).expect(201);
    expect(first.headers.location).to.equal('/orders/1');
    expect(again.headers.location).to.equal('/orders/1');
    expect(again.body).to.deep.equal({ id: 1 });
  });

  it('replays the headers the replayedHeaders option lists, and only those', async () => {
    const { app, runs } = await guardedApp(routes, (o) => {
      o.conflictHandling = 'CachedResult';
      o.replayedHeaders = ['x-run', 'X-Count'];
    });
    await request(app).post('/orders').set(KEY, 'k').send({}).expect(201);
    const again = await request(app).post('/orders').set(KEY, 'k').send({}).expect(201);
    expect(again.headers['x-run']).to.equal('1');
    expect(again.headers.location).to.equal(undefined);
    await request(app).post('/numbers').set(KEY, 'n').send({}).expect(200);
    const numbers = await request(app).post('/numbers').set(KEY, 'n').send({}).expect(200);
    expect(numbers.headers['x-count']).to.equal('42');
    expect([runs.of('orders'), runs.of('numbers')]).to.deep.equal([1, 1]);
  });

  it('refuses replayedHeaders that are not header names or that the server sets itself', async () => {
    const error = await guardedApp(routes, (o) => {
      o.replayedHeaders = ['Location', 'bad name', 'Content-Length'];
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(OptionsValidationError);
    expect((error as OptionsValidationError).failures).to.deep.equal([
      'replayedHeaders: "bad name" is not a header name',
      'replayedHeaders: Content-Length is not replayed from the record (the server sets it)',
    ]);
  });
});
