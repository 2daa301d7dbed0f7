// Database errors in logs, on SQLite, PostgreSQL and MySQL: a unique violation, a value the
// column refuses and a list query on a missing table are logged (through pino with
// safeLoggerOptions, and by the list handler) with their codes and the statement with
// placeholders, never the row values they failed on.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { EventBus, outboxMigration, recordEvents } from '@slicekit/runtime/events';
import { defineListResource, listHandler } from '@slicekit/runtime/list-query';
import {
  isDatabaseError,
  recordFailedStatements,
  safeError,
  safeLoggerOptions,
  type SafeError,
} from '@slicekit/runtime/logging';
import { describeEachDatabase } from '../../support/services.js';

// Values no SQL keyword or code contains, so finding one in a log line means it leaked.
const EMAIL = 'zebra-quasar@example.test';
const NAME = 'Ophelia Quasarwind';
const FILTER = 'Marzipan-Nebula';

/** A pino logger (as a generated app builds it) writing JSON lines into `lines`. */
function capturingLogger(lines: string[]) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return pino({ level: 'info', ...safeLoggerOptions() }, stream);
}

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the query to fail');
}

describeEachDatabase('database errors in logs', (db) => {
  const placeholder = () => (db.dialect === 'postgres' ? '$1' : '?');

  before(async () => {
    recordFailedStatements(db.knex);
    await db.knex.schema.createTable('log_people', (t) => {
      t.increments('id');
      t.string('email', 60).notNullable().unique();
      t.string('name', 20).notNullable();
    });
    await db.knex('log_people').insert({ email: EMAIL, name: 'first' });
  });

  it('logs a unique violation by its codes and statement, without the values', async () => {
    const error = await failure(() =>
      db.knex.transaction((trx) => trx('log_people').insert({ email: EMAIL, name: NAME })),
    );
    // The raw error does carry them: this is what must not reach the log.
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).to.contain(
      EMAIL,
    );
    expect(isDatabaseError(error)).to.equal(true);

    const lines: string[] = [];
    const logger = capturingLogger(lines);
    logger.error({ err: error }, 'request failed');
    logger.error(error);
    logger.error({ err: error });
    expect(lines).to.have.length(3);
    for (const line of lines) {
      expect(line).not.to.contain(EMAIL);
      expect(line).not.to.contain(NAME);
    }
    const logged = JSON.parse(lines[0]!) as { err: SafeError };
    const expected = {
      sqlite: { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      postgres: { code: '23505', constraint: 'log_people_email_unique', table: 'log_people' },
      mysql: { code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000' },
    }[db.dialect];
    expect(logged.err).to.include(expected);
    expect(logged.err.statement).to.match(/^insert into .log_people. \(.email., .name.\) values/);
    expect(logged.err.statement).to.contain(placeholder());
    expect(logged.err.message).to.contain(String(expected.code));
    expect(logged.err.stack).to.match(/^\s+at /);
    expect(JSON.parse(lines[1]!).msg).to.equal(logged.err.message);
    expect(JSON.parse(lines[2]!).msg).to.equal(logged.err.message);
  });

  it('logs a row the table refuses (no name, a name too long) without its values', async () => {
    const refused: { email: string; name: string | null }[] = [
      { email: 'another@example.test', name: null },
    ];
    // SQLite stores a string longer than the declared length: only the missing name fails there.
    if (db.dialect !== 'sqlite')
      refused.push({ email: 'another@example.test', name: `${NAME}, and more` });
    const codes = [];
    for (const row of refused) {
      const error = await failure(() => db.knex('log_people').insert(row));
      const safe = safeError(error) as SafeError;
      const text = JSON.stringify(safe);
      expect(text).not.to.contain(NAME);
      expect(text).not.to.contain('another@example.test');
      expect(safe.statement).to.match(/^insert into .log_people./);
      codes.push(safe.code);
    }
    expect(codes).to.deep.equal(
      {
        sqlite: ['SQLITE_CONSTRAINT_NOTNULL'],
        postgres: ['23502', '22001'],
        mysql: ['ER_BAD_NULL_ERROR', 'ER_DATA_TOO_LONG'],
      }[db.dialect],
    );
  });

  it('keeps a cause and the message of an error that is not the database', async () => {
    const cause = await failure(() => db.knex('log_people').insert({ email: EMAIL, name: NAME }));
    const wrapped = new Error('saving the person failed', { cause });
    const safe = safeError(wrapped) as SafeError;
    expect(safe.message).to.equal('saving the person failed');
    expect(safe.stack).to.contain('saving the person failed');
    expect((safe.cause as SafeError).statement).to.match(/^insert into/);
    expect(JSON.stringify(safe)).not.to.contain(EMAIL);
  });

  it("logs the list handler's database failure without the filter value", async () => {
    const logged: unknown[] = [];
    const ghosts = defineListResource({
      table: 'log_missing_table',
      dto: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
      },
    });
    const app = express();
    app.get(
      '/ghosts',
      listHandler(ghosts, db.knex, { logger: { error: (obj: object) => logged.push(obj) } }),
    );
    const res = await request(app).get(`/ghosts?filter=name:Equal:${FILTER}`);
    expect(res.status).to.equal(500);
    expect(logged).to.have.length(1);
    const text = JSON.stringify(logged[0]);
    expect(text).not.to.contain(FILTER);
    const err = (logged[0] as { err: SafeError }).err;
    expect(err.statement).to.match(/log_missing_table/);
    expect(err.statement).to.contain(placeholder());
    expect(err.code ?? err.sqlState).to.be.a('string');
  });

  it("logs a subscriber's database failure in the event bus without the values", async () => {
    await outboxMigration().up(db.knex);
    const logged: unknown[] = [];
    const log = (obj: unknown) => logged.push(obj);
    const bus = new EventBus<{ PersonAdded: { email: string } }>({
      knex: db.knex,
      pollIntervalMs: 600_000,
      retryDelayMs: 0,
      maxAttempts: 2,
      logger: { info() {}, debug() {}, warn: log, error: log },
    });
    bus.on('PersonAdded', async (event) => {
      await db.knex('log_people').insert({ email: event.payload.email, name: NAME });
    });
    try {
      await recordEvents(db.knex, [{ name: 'PersonAdded', payload: { email: EMAIL } }]);
      await bus.dispatchPending();
      await bus.dispatchPending();
    } finally {
      await bus.stop();
    }
    expect(logged).to.have.length(2);
    for (const entry of logged) {
      const text = JSON.stringify(entry);
      expect(text).not.to.contain(EMAIL);
      expect(text).not.to.contain(NAME);
      const { err } = entry as { err: SafeError };
      expect(err.statement).to.match(/^insert into .log_people./);
      // The duplicate email, so the value at stake was the distinctive one.
      expect(err.code).to.equal(
        { sqlite: 'SQLITE_CONSTRAINT_UNIQUE', postgres: '23505', mysql: 'ER_DUP_ENTRY' }[
          db.dialect
        ],
      );
    }
  });
});

describe('safeError on errors that are not the database', () => {
  it('keeps type, message, stack and simple fields, and answers non-errors as they are', () => {
    const error = Object.assign(new TypeError('bad thing'), { code: 'E_BAD', retry: 2 });
    const safe = safeError(error) as SafeError;
    expect(safe).to.include({ type: 'TypeError', message: 'bad thing', code: 'E_BAD', retry: 2 });
    expect(safe.stack).to.contain('bad thing');
    expect(safeError('text')).to.equal('text');
    expect(safeError({ plain: 1 })).to.deep.equal({ plain: 1 });
  });

  it('makes the errors of an AggregateError safe too', () => {
    const db = Object.assign(new Error("insert ... - Duplicate entry 'secret@x'"), {
      code: 'ER_DUP_ENTRY',
      errno: 1062,
      sqlState: '23000',
      sqlMessage: "Duplicate entry 'secret@x' for key 'email'",
      sql: "insert into t values ('secret@x')",
    });
    const safe = safeError(new AggregateError([db], 'both failed')) as SafeError;
    expect(JSON.stringify(safe)).not.to.contain('secret@x');
    expect(safe.errors?.[0]).to.include({ code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000' });
  });
});
