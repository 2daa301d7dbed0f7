// Which failures mean "the database is unavailable" (503 with Retry-After) rather than a failed
// statement (500), as the drivers raise them, and the answer a route gives.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  answerDatabaseUnavailable,
  DatabaseProblemCode,
  isDatabaseUnavailable,
} from '@slicekit/runtime/database';

const unavailable: Record<string, unknown> = {
  'Knex: no pooled connection in time': Object.assign(new Error('Knex: Timeout acquiring'), {
    name: 'KnexTimeoutError',
  }),
  'mysql2: query timeout': { code: 'PROTOCOL_SEQUENCE_TIMEOUT', fatal: true },
  'mysql2: connect timeout': { code: 'ETIMEDOUT', errno: 'ETIMEDOUT', fatal: true },
  'mysql2: connection lost': { code: 'PROTOCOL_CONNECTION_LOST', fatal: true },
  'mysql2: closed connection': {
    message: "Can't add new command when connection is in closed state",
    fatal: true,
  },
  'MySQL: lock wait timeout': { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205, sqlState: 'HY000' },
  'MySQL: too many connections': { code: 'ER_CON_COUNT_ERROR', errno: 1040 },
  'socket: refused': { code: 'ECONNREFUSED' },
  'socket: reset': { code: 'ECONNRESET' },
  'socket: refused on every address': new AggregateError([{ code: 'ECONNREFUSED' }], 'x'),
  'PostgreSQL: statement_timeout': { code: '57014', severity: 'ERROR' },
  'PostgreSQL: shutting down': { code: '57P01' },
  'PostgreSQL: connection failure': { code: '08006' },
  'pg: query read timeout, as Knex words it': new Error('select 1 - Query read timeout'),
  'pg: connection timeout': new Error('Connection terminated due to connection timeout'),
  'pg: connection ended': new Error('BEGIN; - Connection terminated unexpectedly'),
  'pg: closed client': new Error('Client was closed and is not queryable'),
  'SQLite: busy': { code: 'SQLITE_BUSY' },
  'wrapped in a cause': new Error('wrapped', { cause: { code: 'ECONNRESET' } }),
};

const failedStatements: Record<string, unknown> = {
  'PostgreSQL: unique violation': { code: '23505' },
  'PostgreSQL: syntax error': { code: '42601' },
  'MySQL: duplicate entry': { code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000', fatal: false },
  'mysql2: fatal SQL error': { code: 'ER_PARSE_ERROR', sqlState: '42000', fatal: true },
  'SQLite: constraint': { code: 'SQLITE_CONSTRAINT_UNIQUE' },
  'a message that only mentions a timeout': new Error('the Query read timeout setting is wrong'),
  'not an error': 'ECONNREFUSED',
  nothing: undefined,
};

describe('an unavailable database', () => {
  for (const [what, error] of Object.entries(unavailable)) {
    it(`is recognised: ${what}`, () => {
      expect(isDatabaseUnavailable(error)).to.equal(true);
    });
  }
  for (const [what, error] of Object.entries(failedStatements)) {
    it(`is not confused with a failed statement: ${what}`, () => {
      expect(isDatabaseUnavailable(error)).to.equal(false);
    });
  }

  it('is answered 503 problem+json with Retry-After; anything else is left to the next handler', async () => {
    const app = express();
    app.get('/down', (req, res) => {
      if (!answerDatabaseUnavailable({ code: 'ECONNREFUSED' }, req, res)) res.status(500).end();
    });
    app.get('/bug', (req, res) => {
      if (!answerDatabaseUnavailable(new TypeError('x is undefined'), req, res)) {
        res.status(500).end();
      }
    });
    const down = await request(app).get('/down?page=2');
    expect(down.status).to.equal(503);
    expect(down.headers['retry-after']).to.equal('5');
    expect(down.type).to.equal('application/problem+json');
    expect(down.body).to.deep.equal({
      type: 'urn:slicekit:problem:database-unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'the database did not answer in time; retry later',
      instance: '/down?page=2',
      code: 'database.unavailable',
    });
    expect((await request(app).get('/bug')).status).to.equal(500);
  });

  it('has its problem code documented in docs/reliability.md', () => {
    const docs = readFileSync(new URL('../../../docs/reliability.md', import.meta.url), 'utf8');
    for (const code of Object.values(DatabaseProblemCode)) expect(docs).to.contain(`\`${code}\``);
  });
});
