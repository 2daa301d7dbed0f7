// PostgreSQL runs each data statement under a name on every pooled connection (parsed and planned
// once), bounded per connection, survives a migration changing a table under a prepared
// statement, and can be switched off from the URL for a pooler that keeps no named statement.
// MySQL and SQLite connections are not touched (their drivers prepare nothing here).
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { knexConfig } from '@slicekit/runtime/database';
import { PREPARED_PER_CONNECTION } from '@slicekit/runtime/internal';
import { useDatabase } from '../../support/services.js';

describe('named statements on postgres', () => {
  const db = useDatabase('postgres');
  const opened: Knex[] = [];
  // One connection, so every statement of a test meets the same session's prepared statements.
  const connect = (url = db.url) => {
    const knex = knexFactory(knexConfig(url, { pool: { min: 1, max: 1 } }));
    opened.push(knex);
    return knex;
  };
  const prepared = async (knex: Knex) =>
    (
      (await knex.raw('select name, statement from pg_prepared_statements')) as {
        rows: { name: string; statement: string }[];
      }
    ).rows;

  before(async () => {
    await db.knex.schema.dropTableIfExists('prep_items');
    await db.knex.schema.createTable('prep_items', (t) => {
      t.integer('id').primary();
      t.string('label');
    });
    await db.knex('prep_items').insert([
      { id: 1, label: 'one' },
      { id: 2, label: 'two' },
    ]);
  });
  after(async () => {
    await Promise.all(opened.map((knex) => knex.destroy()));
  });

  it('prepares a data statement once per connection and answers each run with its own values', async () => {
    const knex = connect();
    const labels = [];
    for (const id of [1, 2, 1]) labels.push((await knex('prep_items').where({ id }).first()).label);
    expect(labels).to.deep.equal(['one', 'two', 'one']);
    const statements = (await prepared(knex)).filter((s) => s.statement.includes('prep_items'));
    expect(statements).to.have.length(1);
    expect(statements[0]!.name).to.match(/^sk_/);
    // Utility statements are not named.
    await knex.transaction(async (trx) => trx.raw('set local statement_timeout = 1000'));
    expect(
      (await prepared(knex)).every((s) =>
        /^\s*(select|insert|update|delete|with)/i.test(s.statement),
      ),
    ).to.equal(true);
  });

  it(`names at most ${PREPARED_PER_CONNECTION} statements on one connection, and runs the rest unnamed`, async () => {
    const knex = connect();
    const answers = [];
    for (let n = 0; n < PREPARED_PER_CONNECTION + 5; n++) {
      answers.push((await knex.raw('select ?::int + ' + n + ' as v', [1])).rows[0].v);
    }
    expect(answers.at(-1)).to.equal(PREPARED_PER_CONNECTION + 5);
    expect(await prepared(knex)).to.have.length(PREPARED_PER_CONNECTION);
  });

  it('answers after a migration adds a column under a prepared select *, outside a transaction and in the next one', async () => {
    const knex = connect();
    const row = () => knex('prep_items').where({ id: 2 }).first();
    expect(await row()).to.deep.equal({ id: 2, label: 'two' });
    await db.knex.schema.alterTable('prep_items', (t) => t.string('note').defaultTo('n'));
    try {
      expect(await row()).to.deep.equal({ id: 2, label: 'two', note: 'n' });
      // In a transaction the statement that met the change fails it (the transaction is aborted):
      // the next transaction runs it unnamed.
      const inTransaction = () =>
        knex.transaction((trx) => trx('prep_items').where({ label: 'one' }).first());
      await knex('prep_items').where({ label: 'one' }).first();
      await db.knex.schema.alterTable('prep_items', (t) => t.dropColumn('note'));
      const failed = await inTransaction().then(
        () => undefined,
        (error: { code?: string }) => error,
      );
      expect(failed?.code).to.equal('0A000');
      expect(await inTransaction()).to.deep.equal({ id: 1, label: 'one' });
    } finally {
      if (await db.knex.schema.hasColumn('prep_items', 'note')) {
        await db.knex.schema.alterTable('prep_items', (t) => t.dropColumn('note'));
      }
    }
  });

  it('runs every statement unnamed with prepared_statements=false in the URL', async () => {
    const url = new URL(db.url);
    url.searchParams.set('prepared_statements', 'false');
    const knex = connect(url.toString());
    expect((await knex('prep_items').where({ id: 1 }).first()).label).to.equal('one');
    expect(await prepared(knex)).to.deep.equal([]);
  });
});
