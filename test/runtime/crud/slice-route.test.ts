// sliceRoute and RuleViolation: a route of a generated slice gets its id, caller and typed body, and
// a business rule an entity method refuses is answered as 409 or 422 problem+json with a stable
// code, the change rolled back, on SQLite, PostgreSQL and MySQL.
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import {
  changeEntity,
  defineEntityTable,
  loadRow,
  sendEntity,
  sliceRoute,
} from '@slicekit/runtime/crud';
import { RuleViolation } from '@slicekit/runtime/domain';
import { describeEachDatabase } from '../../support/services.js';

class Ticket {
  id!: string;
  status!: string;
  note!: string | null;

  /** Closing needs an open ticket (409); a note of "no reason" breaks a rule whatever the state (422). */
  close(note: string): void {
    if (note === 'no reason') {
      throw new RuleViolation('ticket.close.note', 'a ticket is closed with a reason', {
        status: 422,
      });
    }
    if (this.status !== 'open') {
      throw new RuleViolation(
        'ticket.close.status',
        `Close needs status open; it is ${this.status}`,
      );
    }
    this.status = 'closed';
    this.note = note;
  }
}

const tickets = defineEntityTable({
  table: 'rule_tickets',
  entity: Ticket,
  fields: { id: 'string', status: 'string', note: 'text' },
});

const closeSchema = {
  type: 'object',
  properties: { note: { type: 'string', minLength: 1 } },
  required: ['note'],
} as const;

describeEachDatabase('sliceRoute and rule violations', (db) => {
  let app: Express;

  before(async () => {
    await db.knex.schema.createTable('rule_tickets', (t) => {
      t.string('id', 20).primary();
      t.string('status', 20).notNullable();
      t.text('note');
    });
    app = express();
    app.use(express.json());
    app.get(
      '/tickets/:id',
      sliceRoute(async ({ id, caller }, res) => {
        sendEntity(res, await loadRow(db.knex, tickets, id, caller));
      }),
    );
    app.post(
      '/tickets/:id/close',
      sliceRoute(closeSchema, async ({ id, body, caller }, res) => {
        // `body.note` is a string here: the schema's type, no cast.
        const note: string = body.note;
        sendEntity(res, await changeEntity(db.knex, tickets, id, caller, (t) => t.close(note)));
      }),
    );
    app.post(
      '/tickets',
      sliceRoute(async ({ id }, res) => {
        res.json({ id });
      }),
    );
    app.use(((_error, _req, res, _next) => {
      res.status(500).end();
    }) as express.ErrorRequestHandler);
  });

  beforeEach(async () => {
    await db.knex('rule_tickets').delete();
    await db.knex('rule_tickets').insert([
      { id: 't1', status: 'open', note: null },
      { id: 't2', status: 'closed', note: 'done' },
    ]);
  });

  it('hands the route the id and the valid body: 200 with the change saved', async () => {
    const res = await request(app).post('/tickets/t1/close').send({ note: 'fixed' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ id: 't1', status: 'closed', note: 'fixed' });
  });

  it('answers 400 problem+json for a body the schema refuses, before the route runs', async () => {
    const res = await request(app).post('/tickets/t1/close').send({ note: '' });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'crud.invalid_request' });
    expect((await request(app).get('/tickets/t1')).body).to.include({ status: 'open' });
  });

  it('answers 409 problem+json crud.rule_violation with the rule, and saves nothing', async () => {
    const res = await request(app).post('/tickets/t2/close').send({ note: 'again' });
    expect(res.status).to.equal(409);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.deep.equal({
      type: 'urn:slicekit:problem:rule-violation',
      title: 'Conflict',
      status: 409,
      detail: 'Close needs status open; it is closed',
      instance: '/tickets/t2/close',
      code: 'crud.rule_violation',
      rule: 'ticket.close.status',
    });
    expect((await request(app).get('/tickets/t2')).body).to.include({ note: 'done' });
  });

  it('answers 422 when the rule says so', async () => {
    const res = await request(app).post('/tickets/t1/close').send({ note: 'no reason' });
    expect(res.status).to.equal(422);
    expect(res.body).to.include({
      title: 'Unprocessable Content',
      code: 'crud.rule_violation',
      rule: 'ticket.close.note',
    });
    expect((await request(app).get('/tickets/t1')).body).to.include({ status: 'open' });
  });

  it('still answers 404 for an unknown id before any rule is looked at', async () => {
    const res = await request(app).post('/tickets/t9/close').send({ note: 'x' });
    expect(res.status).to.equal(404);
  });

  it('refuses to read an id on a route that has none (500, a mapping mistake)', async () => {
    expect((await request(app).post('/tickets')).status).to.equal(500);
  });
});
