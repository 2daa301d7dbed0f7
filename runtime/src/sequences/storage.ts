// Creating and dropping sequences: native ones or counter rows, as the dialect keeps them.
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
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
  const table = options.table ?? DEFAULT_SEQUENCE_TABLE;
  await dialectFor(knex).sequences.ensure(knex, sequences, table);
}

/** Drops the given sequences (their counter rows, and the counter table once it is empty). */
export async function dropSequences(
  knex: Knex,
  sequences: readonly SequenceDefinition[],
  options: SequenceTableOptions = {},
): Promise<void> {
  const table = options.table ?? DEFAULT_SEQUENCE_TABLE;
  await dialectFor(knex).sequences.drop(knex, sequences, table);
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
