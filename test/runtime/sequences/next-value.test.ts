// Sequences on real databases: unique values under concurrency, formatting, the maximum.
import { expect } from 'chai';
import {
  defineSequence,
  ensureSequences,
  nextNumber,
  nextValue,
  sequenceMigration,
  SequenceExhaustedError,
  SequenceNotFoundError,
} from '@slicekit/runtime/sequences';
import { describeEachDatabase } from '../../support/services.js';

const tickets = defineSequence({
  name: 'ticket_numbers',
  format: 'T{DateTime:yyMMdd}{1:00000}',
  max: 99999,
});
const small = defineSequence({ name: 'small_seq', valueType: 'int', max: 5 });
const late = defineSequence({ name: 'late_seq', start: 1000 });

async function settle<T>(promises: Promise<T>[]) {
  const results = await Promise.allSettled(promises);
  return {
    values: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
    errors: results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : [])),
  };
}

describeEachDatabase('sequences', (db) => {
  before(async () => {
    await sequenceMigration([tickets, small, late]).up(db.knex);
  });

  it('hands 50 concurrent callers 50 different formatted values', async () => {
    const now = new Date('2024-03-09T12:00:00Z');
    const values = await Promise.all(
      Array.from({ length: 50 }, () => nextValue(db.knex, tickets, { now })),
    );
    expect(new Set(values).size).to.equal(50);
    for (const value of values) expect(value).to.match(/^T240309\d{5}$/);
    const numbers = values.map((v) => Number(v.slice(7))).sort((a, b) => a - b);
    expect(numbers).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('starts at the declared start value', async () => {
    expect(await nextNumber(db.knex, late)).to.equal(1000);
    expect(await nextNumber(db.knex, late)).to.equal(1001);
  });

  it('keeps the current value when the migration runs again', async () => {
    const before = await nextNumber(db.knex, late);
    await ensureSequences(db.knex, [tickets, small, late]);
    expect(await nextNumber(db.knex, late)).to.equal(before + 1);
  });

  it('hands out exactly max values to concurrent callers and then fails with sequence_exhausted', async () => {
    const { values, errors } = await settle(
      Array.from({ length: 8 }, () => nextNumber(db.knex, small)),
    );
    expect(values.sort()).to.deep.equal([1, 2, 3, 4, 5]);
    expect(errors).to.have.length(3);
    for (const error of errors) {
      expect(error).to.be.instanceOf(SequenceExhaustedError);
      expect(error).to.include({ code: 'sequence_exhausted', sequence: 'small_seq', max: 5 });
    }
    try {
      await nextValue(db.knex, small);
      expect.fail('an exhausted sequence gave a value');
    } catch (error) {
      expect((error as Error).message).to.equal(
        'sequence "small_seq" has reached its maximum of 5',
      );
    }
  });

  it('says the migration has not run for a sequence that was never created', async () => {
    const unknown = defineSequence({ name: 'never_created' });
    try {
      await nextValue(db.knex, unknown);
      expect.fail('an unknown sequence gave a value');
    } catch (error) {
      expect(error).to.be.instanceOf(SequenceNotFoundError);
      expect(error).to.include({ code: 'sequence_not_found' });
    }
  });

  it('drops its sequences on the way down', async () => {
    await sequenceMigration([late]).down(db.knex);
    try {
      await nextNumber(db.knex, late);
      expect.fail('a dropped sequence gave a value');
    } catch (error) {
      expect(error).to.be.instanceOf(SequenceNotFoundError);
    }
    expect(await nextNumber(db.knex, tickets)).to.equal(51);
  });
});
