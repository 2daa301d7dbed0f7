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
  return {
    up: async (knex) => {
      for (const { scope = [], columns } of shape.indexes) {
        await dialectFor(knex).liveIndex.create(knex, shape.table, scope, columns, deleted);
      }
    },
    down: async (knex) => {
      for (const { scope = [], columns } of shape.indexes) {
        await dialectFor(knex).liveIndex.drop(knex, shape.table, [...scope, ...columns]);
      }
    },
  };
}
