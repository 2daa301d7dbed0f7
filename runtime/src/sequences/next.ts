// `nextValue` / `nextNumber`: the next value of a sequence, unique across concurrent callers.
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import type { SequenceDefinition } from './definition.js';
import { SequenceExhaustedError, SequenceNotFoundError } from './errors.js';
import { renderSequenceValue } from './format.js';
import { DEFAULT_SEQUENCE_TABLE, type SequenceTableOptions } from './storage.js';

async function missingOrExhausted(
  knex: Knex,
  s: SequenceDefinition,
  table: string,
): Promise<never> {
  let exists: boolean;
  try {
    exists = (await knex(table).where('name', s.name).first('name')) !== undefined;
  } catch (error) {
    throw new SequenceNotFoundError(s.name, { cause: error });
  }
  if (!exists) throw new SequenceNotFoundError(s.name);
  throw new SequenceExhaustedError(s.name, s.max);
}

/**
 * The next number of `sequence`. Values are unique across callers, processes and rollbacks; a
 * value taken by a transaction that rolls back may leave a gap (PostgreSQL) or be taken again
 * (MySQL, SQLite, when called through that transaction).
 */
export async function nextNumber(
  knex: Knex,
  sequence: SequenceDefinition,
  options: SequenceTableOptions = {},
): Promise<number> {
  const table = options.table ?? DEFAULT_SEQUENCE_TABLE;
  const { sequences } = dialectFor(knex);
  let value: number | undefined;
  try {
    value = await sequences.next(knex, sequence, table);
  } catch (error) {
    const failure = sequences.failure(error);
    if (failure === 'exhausted') {
      throw new SequenceExhaustedError(sequence.name, sequence.max, { cause: error });
    }
    if (failure === 'missing') throw new SequenceNotFoundError(sequence.name, { cause: error });
    throw error;
  }
  if (value === undefined) return missingOrExhausted(knex, sequence, table);
  if (value > sequence.max) throw new SequenceExhaustedError(sequence.name, sequence.max);
  return value;
}

/**
 * The next value of `sequence`, formatted. Throws `SequenceExhaustedError` (code
 * `sequence_exhausted`) past the maximum and `SequenceNotFoundError` before the migration ran.
 *
 * @example
 * const number = await nextValue(knex, ticketNumbers); // 'T24030900001'
 */
export async function nextValue(
  knex: Knex,
  sequence: SequenceDefinition,
  options: SequenceTableOptions & { now?: Date } = {},
): Promise<string> {
  const value = await nextNumber(knex, sequence, options);
  return renderSequenceValue(sequence.format, value, options.now ?? new Date());
}
