// The unique index of one text column, as a migration makes it: exact (byte for byte) or ignoring
// case the way the list query's case-insensitive match folds, the same on every database (see
// docs/entity-spec.md, "Unique fields", and sql/dialects/unique-text.ts for how each does it).
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';

/** What a migration declares: the table, its text column, and whether case is ignored. */
export interface UniqueIndexShape {
  table: string;
  column: string;
  /** `ANA@example.com` repeats `ana@example.com`. @default false */
  ignoreCase?: boolean;
}

/**
 * The `up` and `down` of a text column's unique index, for a migration to call.
 *
 * @example
 * const unique = uniqueIndexMigration({ table: 'members', column: 'email', ignoreCase: true });
 * export const up = (knex) => unique.up(knex);
 */
export function uniqueIndexMigration(shape: UniqueIndexShape): {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
} {
  const ignoreCase = shape.ignoreCase ?? false;
  return {
    up: (knex) => dialectFor(knex).uniqueText.create(knex, shape.table, shape.column, ignoreCase),
    down: (knex) => dialectFor(knex).uniqueText.drop(knex, shape.table, shape.column, ignoreCase),
  };
}
