// Unique fields against real databases: a row repeating a unique group is refused with 409 naming
// the group's properties, never a 500 from the index, and nothing of it is stored.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { changeEntity, defineEntityTable, insertEntity } from '@slicekit/runtime/crud';
import { outboxMigration } from '@slicekit/runtime/events';
import { ProblemError } from '@slicekit/runtime/http';
import { describeEachDatabase } from '../../support/services.js';

class Member {
  id: string;
  email: string;
  team: string;
  seat: number;
  constructor(id: string, email: string, team: string, seat: number) {
    this.id = id;
    this.email = email;
    this.team = team;
    this.seat = seat;
  }
}

const members = defineEntityTable({
  table: 'members',
  entity: Member,
  fields: { id: 'uuid', email: 'string', team: 'string', seat: 'integer' },
  unique: [['email'], ['team', 'seat']],
  events: [{ operation: 'Created', fields: ['email'] }],
});

const idOf = (n: number) => `7a1c2f7e-3c1a-4e0b-9a51-${String(n).padStart(12, '0')}`;

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

async function createTable(knex: Knex): Promise<void> {
  await knex.schema.createTable('members', (t) => {
    t.uuid('id').primary();
    t.string('email', 200).notNullable().unique();
    t.string('team', 50).notNullable();
    t.integer('seat').notNullable();
    t.unique(['team', 'seat']);
  });
}

describeEachDatabase('unique fields', (db) => {
  before(async () => {
    await createTable(db.knex);
    await outboxMigration().up(db.knex);
    await insertEntity(db.knex, members, new Member(idOf(1), 'ana@example.com', 'blue', 1), '');
    await insertEntity(db.knex, members, new Member(idOf(2), 'kenji@example.com', 'blue', 2), '');
  });
  const count = async () => Number((await db.knex('members').count({ n: '*' }).first())?.n);
  const events = async () =>
    Number((await db.knex('slicekit_outbox').count({ n: '*' }).first())?.n);

  it('refuses a new row with a taken email: 409 naming email, and stores neither row nor event', async () => {
    const error = await failure(
      insertEntity(db.knex, members, new Member(idOf(3), 'ana@example.com', 'red', 1), ''),
    );
    expect(error).to.be.instanceOf(ProblemError).with.property('status', 409);
    expect((error as ProblemError).toProblem()).to.include({ code: 'crud.duplicate' });
    expect((error as ProblemError).toProblem().fields).to.deep.equal(['email']);
    expect(await count()).to.equal(2);
    expect(await events()).to.equal(2);
  });

  it('names both properties of a repeated group', async () => {
    const error = await failure(
      insertEntity(db.knex, members, new Member(idOf(4), 'lars@example.com', 'blue', 2), ''),
    );
    expect(error).to.be.instanceOf(ProblemError).with.property('status', 409);
    expect((error as ProblemError).toProblem().fields).to.deep.equal(['team', 'seat']);
  });

  it('refuses a change to a taken value with 409 and keeps the row as it was', async () => {
    const error = await failure(
      changeEntity(db.knex, members, idOf(2), '', (m) => {
        m.email = 'ana@example.com';
      }),
    );
    expect(error).to.be.instanceOf(ProblemError).with.property('status', 409);
    expect((error as ProblemError).toProblem().fields).to.deep.equal(['email']);
    const kept = await db
      .knex('members')
      .where({ id: idOf(2) })
      .first();
    expect(kept.email).to.equal('kenji@example.com');
  });

  it('lets a row keep its own unique values on a save', async () => {
    const row = await changeEntity(db.knex, members, idOf(1), '', (m) => {
      m.seat = 1;
    });
    expect(members.fromRow(row)).to.include({ email: 'ana@example.com', seat: 1 });
  });
});
