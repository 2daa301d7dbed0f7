// The unique indexes of a soft-deleting table, as a migration makes them: each unique among the
// live rows only, so a deleted row's value can be taken again (a partial unique index on
// PostgreSQL and SQLite; on MySQL and MariaDB, which have none, a unique index ending in a
// generated column that is NULL for deleted rows). See docs/access.md, "Soft delete".
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';

/** What a migration declares: the table, its deleted-on column and each unique column group. */
export interface LiveUniqueShape {
  table: string;
  /** @default 'deleted_on' */
  deletedColumn?: string;
  unique: readonly (readonly string[])[];
}

/**
 * The `up` and `down` of a soft-deleting table's unique indexes, for a migration to call.
 *
 * @example
 * const unique = liveUniqueMigration({ table: 'members', unique: [['email']] });
 * export const up = (knex) => unique.up(knex);
 */
export function liveUniqueMigration(shape: LiveUniqueShape): {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
} {
  const deleted = shape.deletedColumn ?? 'deleted_on';
  return {
    up: async (knex) => {
      for (const columns of shape.unique) {
        await dialectFor(knex).liveUnique.create(knex, shape.table, columns, deleted);
      }
    },
    down: async (knex) => {
      for (const columns of shape.unique) {
        await dialectFor(knex).liveUnique.drop(knex, shape.table, columns);
      }
    },
  };
}
