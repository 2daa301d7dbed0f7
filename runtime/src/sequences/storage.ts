// Creating and dropping sequences: native ones on PostgreSQL, counter rows elsewhere.
import type { Knex } from 'knex';
import { sqlFamily } from '../sql/dialect.js';
import type { SequenceDefinition } from './definition.js';

export interface SequenceTableOptions {
  /** Counter table used on MySQL/MariaDB and SQLite. @default 'slicekit_sequences' */
  table?: string;
}

export const DEFAULT_SEQUENCE_TABLE = 'slicekit_sequences';

/**
 * Creates the sequences that do not exist yet, leaving existing ones (and their current value)
 * untouched, so running it again is harmless.
 */
export async function ensureSequences(
  knex: Knex,
  sequences: readonly SequenceDefinition[],
  options: SequenceTableOptions = {},
): Promise<void> {
  if (sqlFamily(knex) === 'postgres') {
    for (const s of sequences) {
      const type = s.valueType === 'int' ? 'integer' : 'bigint';
      // NO CYCLE: at maxvalue nextval fails (SQLSTATE 2200H) instead of starting over.
      await knex.raw(
        `create sequence if not exists ?? as ${type} start with ${s.start} minvalue ${s.start} maxvalue ${s.max} no cycle`,
        [s.name],
      );
    }
    return;
  }
  const table = options.table ?? DEFAULT_SEQUENCE_TABLE;
  if (!(await knex.schema.hasTable(table))) {
    await knex.schema.createTable(table, (t) => {
      t.string('name', 63).primary();
      // The last value handed out; a new counter holds start - 1.
      t.bigInteger('value').notNullable();
    });
  }
  if (sequences.length === 0) return;
  await knex(table)
    .insert(sequences.map((s) => ({ name: s.name, value: s.start - 1 })))
    .onConflict('name')
    .ignore();
}

/** Drops the given sequences (their counter rows, and the counter table once it is empty). */
export async function dropSequences(
  knex: Knex,
  sequences: readonly SequenceDefinition[],
  options: SequenceTableOptions = {},
): Promise<void> {
  if (sqlFamily(knex) === 'postgres') {
    for (const s of sequences) await knex.raw('drop sequence if exists ??', [s.name]);
    return;
  }
  const table = options.table ?? DEFAULT_SEQUENCE_TABLE;
  if (!(await knex.schema.hasTable(table))) return;
  await knex(table)
    .whereIn(
      'name',
      sequences.map((s) => s.name),
    )
    .del();
  const [left] = await knex(table).count({ n: '*' });
  if (Number(left?.n ?? 0) === 0) await knex.schema.dropTable(table);
}

/**
 * A Knex migration creating `sequences`.
 *
 * @example
 * // migrations/20240101000100_sequences.ts
 * export const { up, down } = sequenceMigration([ticketNumbers]);
 */
export function sequenceMigration(
  sequences: readonly SequenceDefinition[],
  options: SequenceTableOptions = {},
): { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> } {
  return {
    up: (knex) => ensureSequences(knex, sequences, options),
    down: (knex) => dropSequences(knex, sequences, options),
  };
}
