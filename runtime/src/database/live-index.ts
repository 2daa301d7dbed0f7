// The list indexes of a soft-deleting table, as a migration makes them: each covers the live rows
// only, so a list, its count and its cursor pages never read past deleted rows (a partial index
// on PostgreSQL and SQLite; on MySQL and MariaDB, which have none, the deleted-on column right
// after the scope columns, so the live rows of one scope are one range of the index). See
// docs/list-query.md, "Indexes".
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';

/** One index: `scope` (compared by equality: the tenant, the owner), then `columns`. */
export interface LiveIndexColumns {
  /** @default [] */
  scope?: readonly string[];
  columns: readonly string[];
  /**
   * Kept only for counting the scope's live rows: made on PostgreSQL, where an index of the
   * scope alone reads in few pages, and left out on SQLite, MySQL and MariaDB (each dialect's
   * `countIndexes` says why).
   */
  counts?: boolean;
}

/** What a migration declares: the table, its deleted-on column and each index. */
export interface LiveIndexShape {
  table: string;
  /** @default 'deleted_on' */
  deletedColumn?: string;
  indexes: readonly LiveIndexColumns[];
}

/**
 * The `up` and `down` of a soft-deleting table's list indexes, for a migration to call.
 *
 * @example
 * const lists = liveIndexMigration({
 *   table: 'members',
 *   indexes: [{ scope: ['tenant_id'], columns: ['created_on', 'id'] }],
 * });
 * export const up = (knex) => lists.up(knex);
 */
export function liveIndexMigration(shape: LiveIndexShape): {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
} {
  const deleted = shape.deletedColumn ?? 'deleted_on';
  /** The dialect's live index and the indexes it makes (a count-only one where it pays). */
  const made = (knex: Knex) => {
    const { liveIndex } = dialectFor(knex);
    return { liveIndex, indexes: shape.indexes.filter((i) => !i.counts || liveIndex.countIndexes) };
  };
  return {
    up: async (knex) => {
      const { liveIndex, indexes } = made(knex);
      for (const { scope = [], columns } of indexes) {
        await liveIndex.create(knex, shape.table, scope, columns, deleted);
      }
    },
    down: async (knex) => {
      const { liveIndex, indexes } = made(knex);
      for (const { scope = [], columns } of indexes) {
        await liveIndex.drop(knex, shape.table, [...scope, ...columns]);
      }
    },
  };
}
