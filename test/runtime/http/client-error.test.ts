// The errors Express, its router and body parser raise for a client's mistake answer their own 4xx
// status with a stable code and the status's reason phrase as title, never a 500.
import { expect } from 'chai';
import express, { type ErrorRequestHandler } from 'express';
import createHttpError from 'http-errors';
import request from 'supertest';
import { clientProblemOf, HttpProblemCode, sendProblem, statusTitle } from '@slicekit/runtime/http';

describe('client errors', () => {
  const app = express();
  app.use(express.json());
  app.get('/things/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  app.post('/things', (req, res) => {
    res.status(201).json(req.body);
  });
  const answer: ErrorRequestHandler = (error, req, res, _next) => {
    const problem = clientProblemOf(error, req.originalUrl);
    if (problem) sendProblem(res, problem);
    else res.status(500).end();
  };
  app.use(answer);

  for (const path of ['/things/%', '/things/%E0%A4%A', '/things/a%zz']) {
    it(`answers 400 http.malformed_path to ${path}`, async () => {
      const res = await request(app).get(path);
      expect(res.status).to.equal(400);
      expect(res.type).to.equal('application/problem+json');
      expect(res.body).to.deep.equal({
        type: 'urn:slicekit:problem:malformed-path',
        title: 'Bad Request',
        status: 400,
        detail: 'the URL path is not valid percent-encoding',
        instance: path,
        code: HttpProblemCode.MalformedPath,
      });
    });
  }

  it('answers 413 "Content Too Large" with http.body_too_large to a body over the limit', async () => {
    const res = await request(app)
      .post('/things')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(200_000) }));
    expect(res.status).to.equal(413);
    expect(res.body).to.include({
      title: 'Content Too Large',
      code: HttpProblemCode.BodyTooLarge,
      detail: 'the request body is larger than the 102400 bytes accepted',
    });
  });

  it('answers 415 http.unsupported_body to a charset or encoding the parser cannot read', async () => {
    const charset = await request(app)
      .post('/things')
      .set('content-type', 'application/json; charset=latin2')
      .send('{}');
    expect(charset.status).to.equal(415);
    expect(charset.body).to.include({
      title: 'Unsupported Media Type',
      code: HttpProblemCode.UnsupportedBody,
    });
    const encoding = await request(app)
      .post('/things')
      .set('content-type', 'application/json')
      .set('content-encoding', 'compress')
      .send('{}');
    expect(encoding.status).to.equal(415);
    expect(encoding.body).to.include({ code: HttpProblemCode.UnsupportedBody });
  });

  it('answers 400 http.malformed_json to a body that is not JSON', async () => {
    const res = await request(app)
      .post('/things')
      .set('content-type', 'application/json')
      .send('{"name": ');
    expect(res.status).to.equal(400);
    expect(res.body).to.include({
      code: HttpProblemCode.MalformedJson,
      detail: 'the request body is not valid JSON',
    });
  });

  it('keeps an exposed message, hides one that is not, and leaves 5xx and non-errors alone', () => {
    expect(clientProblemOf(createHttpError(409, 'already there'))).to.deep.equal({
      type: 'urn:slicekit:problem:client-error',
      title: 'Conflict',
      status: 409,
      detail: 'already there',
      code: HttpProblemCode.ClientError,
    });
    const hidden = Object.assign(new Error('internal detail'), { statusCode: 429 });
    expect(clientProblemOf(hidden)).to.include({
      status: 429,
      title: 'Too Many Requests',
      detail: 'Too Many Requests',
    });
    expect(clientProblemOf(createHttpError(503))).to.equal(undefined);
    expect(clientProblemOf(new Error('boom'))).to.equal(undefined);
    expect(clientProblemOf('bad')).to.equal(undefined);
  });
});

describe('statusTitle', () => {
  it("answers RFC 9110's reason phrase, Node's for the statuses it has no entry for", () => {
    expect(statusTitle(413)).to.equal('Content Too Large');
    expect(statusTitle(422)).to.equal('Unprocessable Content');
    expect(statusTitle(431)).to.equal('Request Header Fields Too Large');
    expect(statusTitle(408)).to.equal('Request Timeout');
    expect(statusTitle(599)).to.equal('Error');
  });
});
