// `nextValue` / `nextNumber`: the next value of a sequence, unique across concurrent callers.
import type { Knex } from 'knex';
import { sqlFamily } from '../sql/dialect.js';
import type { SequenceDefinition } from './definition.js';
import { SequenceExhaustedError, SequenceNotFoundError } from './errors.js';
import { renderSequenceValue } from './format.js';
import { DEFAULT_SEQUENCE_TABLE, type SequenceTableOptions } from './storage.js';

interface PgError {
  code?: string;
}

async function nextPostgres(knex: Knex, s: SequenceDefinition): Promise<number> {
  try {
    // nextval is atomic and never hands out a value twice, even across transactions that roll back.
    const result = await knex.raw('select nextval(?::regclass) as value', [`"${s.name}"`]);
    const value = Number((result as { rows: { value: string }[] }).rows[0]?.value);
    if (value > s.max) throw new SequenceExhaustedError(s.name, s.max);
    return value;
  } catch (error) {
    const code = (error as PgError).code;
    if (code === '2200H') throw new SequenceExhaustedError(s.name, s.max, { cause: error });
    if (code === '42P01') throw new SequenceNotFoundError(s.name, { cause: error });
    throw error;
  }
}

async function nextMysql(knex: Knex, s: SequenceDefinition, table: string): Promise<number> {
  // One UPDATE both increments and reads: the row lock serialises concurrent callers, and
  // LAST_INSERT_ID(expr) puts this statement's new value into the OK packet's insertId, which
  // belongs to this statement alone (no second query that another caller could race).
  const [header] = (await knex.raw(
    'update ?? set value = last_insert_id(value + 1) where name = ? and value < ?',
    [table, s.name, s.max],
  )) as unknown as [{ affectedRows: number; insertId: number | string }];
  if (header.affectedRows === 1) return Number(header.insertId);
  return missingOrExhausted(knex, s, table);
}

async function nextSqlite(knex: Knex, s: SequenceDefinition, table: string): Promise<number> {
  // SQLite runs each writing statement under the database's single write lock, so the read
  // of `value` and the write of `value + 1` cannot interleave with another caller's.
  const rows = (await knex.raw(
    'update ?? set value = value + 1 where name = ? and value < ? returning value',
    [table, s.name, s.max],
  )) as { value: number | string }[];
  if (rows.length === 1) return Number(rows[0]?.value);
  return missingOrExhausted(knex, s, table);
}

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
  switch (sqlFamily(knex)) {
    case 'postgres':
      return nextPostgres(knex, sequence);
    case 'mysql':
      return nextMysql(knex, sequence, table);
    case 'sqlite':
      return nextSqlite(knex, sequence, table);
  }
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
