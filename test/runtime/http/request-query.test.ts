// `requestQuery`: the query string parsed once per request, shared by the middleware of a route,
// where Express 5's `req.query` parses it anew on every read.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { requestQuery } from '@slicekit/runtime/http';

describe('requestQuery', () => {
  it('gives every reader of a request the same parse, and each request its own', async () => {
    const app = express();
    app.get(
      '/things',
      (req, res, next) => {
        res.locals.first = requestQuery(req);
        next();
      },
      (req, res) => {
        const again = requestQuery(req);
        res.json({
          query: again,
          sameParse: again === res.locals.first,
        });
      },
    );
    const first = await request(app).get('/things?deleted=only&pageSize=20');
    expect(first.body).to.deep.equal({
      query: { deleted: 'only', pageSize: '20' },
      sameParse: true,
    });
    const second = await request(app).get('/things?pageSize=5');
    expect(second.body.query).to.deep.equal({ pageSize: '5' });
  });
});
