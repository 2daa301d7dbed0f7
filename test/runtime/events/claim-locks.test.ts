// A claim in progress must not hold back the changes that record events: on MySQL/MariaDB a
// claim's SELECT ... FOR UPDATE under REPEATABLE READ locked the gaps of the outbox's due index,
// so an outbox insert waited for it, and when the claim then needed the row that insert had just
// put in the primary key, InnoDB broke the cycle by aborting the insert's transaction
// (ER_LOCK_DEADLOCK on `insert into slicekit_outbox`, a 500 on the create route).
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { outboxMigration, recordEvents } from '@slicekit/runtime/events';
import { claimDue } from '@slicekit/runtime/internal';
import { describeEachDatabase } from '../../support/services.js';

const table = 'slicekit_outbox';

describeEachDatabase('an outbox claim in progress', (db) => {
  before(async () => {
    await outboxMigration().up(db.knex);
  });

  it('does not make a concurrent outbox insert wait', async function () {
    if (db.dialect === 'sqlite') this.skip(); // a claim there is one UPDATE statement, no lock held
    this.timeout(20_000);
    // Due rows for the claim to find, and a later one it leaves alone (batch of 2).
    await recordEvents(
      db.knex,
      [1, 2, 3].map((n) => ({ name: 'ThingCreated', payload: { n } })),
    );
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let selected!: () => void;
    const held = new Promise<void>((resolve) => {
      selected = resolve;
    });
    // A second pool, as a second process. Its driver connections hold back the answer of the
    // claim's SELECT ... FOR UPDATE until `release()`, so the claim stays open with its locks.
    const holdForUpdate = (connection: { query(...args: unknown[]): unknown }) => {
      const query = connection.query;
      connection.query = function (this: unknown, ...args: unknown[]) {
        const first = args[0] as string | { sql?: string; text?: string };
        const sql = typeof first === 'string' ? first : (first.sql ?? first.text ?? '');
        const last = args.length - 1;
        const callback = args[last];
        if (/for update/i.test(sql) && typeof callback === 'function') {
          args[last] = (...answer: unknown[]) => {
            selected();
            void gate.then(() => (callback as (...a: unknown[]) => void)(...answer));
          };
        }
        return query.apply(this, args);
      };
    };
    const claimer: Knex = knexFactory({
      client: db.dialect === 'postgres' ? 'pg' : 'mysql2',
      connection: db.url,
      pool: {
        min: 0,
        max: 2,
        afterCreate(
          connection: { query(...args: unknown[]): unknown },
          done: (e: null, c: unknown) => void,
        ) {
          holdForUpdate(connection);
          done(null, connection);
        },
      },
    });
    try {
      const claim = claimDue(claimer, { table, now: Date.now(), leaseMs: 60_000, batchSize: 2 });
      await held;
      // The insert a create makes, on its own connection, bounded to find out whether it waits.
      const started = Date.now();
      const inserted = await db.knex
        .transaction(async (trx) => {
          if (db.dialect === 'mysql') await trx.raw('set session innodb_lock_wait_timeout = 2');
          else await trx.raw("set local lock_timeout = '2s'");
          await recordEvents(trx, [{ name: 'ThingCreated', payload: { n: 4 } }]);
        })
        .then(
          () => 'inserted',
          (error: { code?: string }) => `failed: ${error.code}`,
        );
      const waited = Date.now() - started;
      release();
      expect((await claim).rows.map((row) => Number(row.id))).to.deep.equal([1, 2]);
      expect(inserted).to.equal('inserted');
      expect(waited, `the insert waited ${waited} ms`).to.be.below(1500);
    } finally {
      release();
      await claimer.destroy();
    }
  });
});
