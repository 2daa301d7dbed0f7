// Unique fields against real databases: a row repeating a unique group is refused with 409 naming
// the group's properties, never a 500 from the index, and nothing of it is stored. A text index
// (uniqueIndexMigration) compares exactly or ignoring case, the same on every database.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { changeEntity, defineEntityTable, insertEntity } from '@slicekit/runtime/crud';
import { uniqueIndexMigration } from '@slicekit/runtime/database';
import { outboxMigration } from '@slicekit/runtime/events';
import { ProblemError } from '@slicekit/runtime/http';
import { describeEachDatabase } from '../../support/services.js';

class Member {
  id: string;
  email: string;
  team: string;
  seat: number;
  handle: string;
  constructor(id: string, email: string, team: string, seat: number, handle = `h${seat}${team}`) {
    this.id = id;
    this.email = email;
    this.team = team;
    this.seat = seat;
    this.handle = handle;
  }
}

const members = defineEntityTable({
  table: 'members',
  entity: Member,
  fields: { id: 'uuid', email: 'email', team: 'string', seat: 'integer', handle: 'string' },
  unique: [['email'], ['team', 'seat'], ['handle']],
  ignoreCase: ['email'],
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
    t.string('email', 200).notNullable();
    t.string('team', 50).notNullable();
    t.integer('seat').notNullable();
    t.string('handle', 50).notNullable();
    t.unique(['team', 'seat']);
  });
  await emailIndex.up(knex);
  await handleIndex.up(knex);
}

const emailIndex = uniqueIndexMigration({ table: 'members', column: 'email', ignoreCase: true });
const handleIndex = uniqueIndexMigration({ table: 'members', column: 'handle' });

describeEachDatabase('unique fields', (db) => {
  before(async () => {
    await createTable(db.knex);
    await outboxMigration().up(db.knex);
    await insertEntity(db.knex, members, new Member(idOf(1), 'ana@example.com', 'blue', 1), '');
    await insertEntity(db.knex, members, new Member(idOf(2), 'kenji@example.com', 'blue', 2), '');
    await insertEntity(
      db.knex,
      members,
      new Member(idOf(5), 'élan@example.com', 'red', 5, 'Ana'),
      '',
    );
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
    expect(await count()).to.equal(3);
    expect(await events()).to.equal(3);
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

  it('refuses an email differing in case only (É and é too), and keeps accents apart', async () => {
    for (const [n, email] of [
      [6, 'ANA@Example.COM'],
      [7, 'ÉLAN@example.com'],
    ] as const) {
      const error = await failure(
        insertEntity(db.knex, members, new Member(idOf(n), email, 'green', n), ''),
      );
      expect(error, email).to.be.instanceOf(ProblemError).with.property('status', 409);
      expect((error as ProblemError).toProblem()).to.deep.include({
        code: 'crud.duplicate',
        fields: ['email'],
      });
    }
    const error = await failure(
      changeEntity(db.knex, members, idOf(2), '', (m) => {
        m.email = 'Ana@example.com';
      }),
    );
    expect((error as ProblemError).toProblem().fields).to.deep.equal(['email']);
    await insertEntity(db.knex, members, new Member(idOf(8), 'elan@example.com', 'green', 8), '');
    await db
      .knex('members')
      .where({ id: idOf(8) })
      .delete();
  });

  it('keeps an exact text index exact on every database: case and trailing spaces count', async () => {
    await insertEntity(db.knex, members, new Member(idOf(9), 'a9@example.com', 'g', 9, 'ana'), '');
    await insertEntity(
      db.knex,
      members,
      new Member(idOf(10), 'a10@example.com', 'g', 10, 'ana '),
      '',
    );
    const error = await failure(
      insertEntity(db.knex, members, new Member(idOf(11), 'a11@example.com', 'g', 11, 'Ana'), ''),
    );
    expect((error as ProblemError).toProblem().fields).to.deep.equal(['handle']);
    await db
      .knex('members')
      .whereIn('id', [idOf(9), idOf(10)])
      .delete();
  });

  it('drops the index and makes it again (an upgrade changing a field)', async () => {
    await emailIndex.down(db.knex);
    await db
      .knex('members')
      .insert({ ...members.toRow(new Member(idOf(12), 'ANA@example.com', 'g', 12)) });
    const made = await failure(emailIndex.up(db.knex));
    expect(made, 'a case-variant pair stops the index').to.be.instanceOf(Error);
    await db
      .knex('members')
      .where({ id: idOf(12) })
      .delete();
    await emailIndex.up(db.knex);
    const error = await failure(
      insertEntity(db.knex, members, new Member(idOf(13), 'ANA@example.com', 'g', 13), ''),
    );
    expect((error as ProblemError).toProblem().fields).to.deep.equal(['email']);
  });

  it('keeps the index over a column made wider later: a long value of 4-byte characters fits', async () => {
    await db.knex.schema.alterTable('members', (t) => {
      t.string('email', 400).notNullable().alter();
    });
    const long = `${'\u{1F600}'.repeat(380)}@example.com`;
    await insertEntity(db.knex, members, new Member(idOf(14), long, 'g', 14), '');
    const error = await failure(
      insertEntity(db.knex, members, new Member(idOf(15), long, 'g', 15), ''),
    );
    expect((error as ProblemError).toProblem().fields).to.deep.equal(['email']);
  });
});
