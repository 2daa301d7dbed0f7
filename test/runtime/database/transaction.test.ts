// Transactions the database aborts to break a deadlock are run again: two transactions locking
// two rows in opposite orders both succeed with transactionWithRetry, where plain
// knex.transaction loses one of them. SQLite's SQLITE_BUSY is not retried (the busy timeout has
// already been waited out) but reported as an unavailable database.
import { expect } from 'chai';
import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import {
  isDatabaseUnavailable,
  isTransactionConflict,
  retryOnConflict,
  transactionWithRetry,
} from '@slicekit/runtime/database';
import { describeEachDatabase } from '../../support/services.js';

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

type Runner = (work: (trx: Knex.Transaction) => Promise<void>) => Promise<void>;

/**
 * Two transactions: one updates row 1 then row 2, the other row 2 then row 1, each waiting until
 * the other holds its first row, so the database must abort one of them as a deadlock. Only the
 * first attempt of each waits; a retry runs straight through.
 */
async function collide(
  run: Runner,
): Promise<{ outcomes: PromiseSettledResult<void>[]; attempts: number }> {
  const locked = [deferred(), deferred()];
  let attempts = 0;
  const transaction = (first: number, second: number, mine: number) =>
    run(async (trx) => {
      attempts += 1;
      const firstAttempt = attempts <= 2;
      await trx('counters').where({ id: first }).increment('n', 1);
      if (firstAttempt) {
        locked[mine]!.resolve();
        await locked[1 - mine]!.promise;
      }
      await trx('counters').where({ id: second }).increment('n', 1);
    });
  const outcomes = await Promise.allSettled([transaction(1, 2, 0), transaction(2, 1, 1)]);
  return { outcomes, attempts };
}

describeEachDatabase('transactions aborted as deadlocks', (db) => {
  before(async () => {
    await db.knex.schema.createTable('counters', (t) => {
      t.integer('id').primary();
      t.integer('n').notNullable();
    });
  });
  beforeEach(async () => {
    await db.knex('counters').delete();
    await db.knex('counters').insert([
      { id: 1, n: 0 },
      { id: 2, n: 0 },
    ]);
  });
  const counts = async () =>
    (await db.knex('counters').orderBy('id').pluck('n')).map((n: unknown) => Number(n));

  it('loses one of two colliding transactions with plain knex.transaction', async function () {
    if (db.dialect === 'sqlite') this.skip(); // one connection: the two cannot interleave
    const { outcomes } = await collide((work) => db.knex.transaction(work));
    const failures = outcomes.filter((o) => o.status === 'rejected');
    expect(failures).to.have.length(1);
    expect(isTransactionConflict((failures[0] as PromiseRejectedResult).reason)).to.equal(true);
    expect(await counts()).to.deep.equal([1, 1]);
  });

  it('runs the aborted one again with transactionWithRetry: both changes are kept', async function () {
    if (db.dialect === 'sqlite') this.skip();
    const { outcomes, attempts } = await collide((work) => transactionWithRetry(db.knex, work));
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled']);
    expect(attempts).to.equal(3);
    expect(await counts()).to.deep.equal([2, 2]);
  });

  it('does not retry inside an outer transaction, whose owner alone can run it again', async () => {
    let runs = 0;
    const conflict = Object.assign(new Error('deadlock'), { code: '40P01' });
    const failure = await db.knex
      .transaction((trx) =>
        transactionWithRetry(trx, async () => {
          runs += 1;
          throw conflict;
        }),
      )
      .catch((error: unknown) => error);
    expect(failure).to.equal(conflict);
    expect(runs).to.equal(1);
  });

  if (db.dialect === 'sqlite') {
    it('reports SQLITE_BUSY as an unavailable database without waiting again', async () => {
      const holder = new Database(db.url);
      holder.exec('BEGIN EXCLUSIVE');
      let runs = 0;
      try {
        await db.knex.raw('pragma busy_timeout = 200');
        const failure = await transactionWithRetry(db.knex, async (trx) => {
          runs += 1;
          await trx('counters').insert({ id: 3, n: 0 });
        }).catch((error: unknown) => error);
        expect((failure as { code?: string }).code).to.equal('SQLITE_BUSY');
        expect(isDatabaseUnavailable(failure)).to.equal(true);
        expect(runs).to.equal(1);
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      expect(await counts()).to.deep.equal([0, 0]);
    });
  }
});

describe('retryOnConflict', () => {
  it('gives up after the last attempt with the conflict itself', async () => {
    let runs = 0;
    const conflict = Object.assign(new Error('Deadlock found'), { errno: 1213 });
    const failure = await retryOnConflict(
      async () => {
        runs += 1;
        throw conflict;
      },
      { attempts: 3, backoffMs: 1 },
    ).catch((error: unknown) => error);
    expect(failure).to.equal(conflict);
    expect(runs).to.equal(3);
  });

  it('throws any other failure at once', async () => {
    let runs = 0;
    const duplicate = Object.assign(new Error('duplicate key'), { code: '23505' });
    const failure = await retryOnConflict(async () => {
      runs += 1;
      throw duplicate;
    }).catch((error: unknown) => error);
    expect(failure).to.equal(duplicate);
    expect(runs).to.equal(1);
  });

  it('recognises deadlocks and serialization failures of each database, and nothing else', () => {
    for (const error of [
      { code: 'ER_LOCK_DEADLOCK', errno: 1213 },
      { errno: 1213 },
      { code: '40001' },
      { code: '40P01' },
      { code: 'SQLITE_BUSY_SNAPSHOT' },
      { message: 'wrapped', cause: { code: '40P01' } },
    ]) {
      expect(isTransactionConflict(error), JSON.stringify(error)).to.equal(true);
    }
    for (const error of [
      { code: 'SQLITE_BUSY' },
      { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 },
      { code: '23505' },
      new Error('40P01'),
      undefined,
    ]) {
      expect(isTransactionConflict(error), JSON.stringify(error)).to.equal(false);
    }
  });
});
