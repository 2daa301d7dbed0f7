// The search index of a list's table, as a migration makes it: the database's own index for a
// case-insensitive substring match over the searched text columns (a pg_trgm GIN index on
// PostgreSQL, an FTS5 trigram table kept in step by triggers on SQLite; MySQL and MariaDB have
// none that serves LIKE '%term%', and get nothing). See docs/list-query.md, "Indexes".
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';

/** What a migration declares: the table and its searched text columns. */
export interface SearchIndexShape {
  table: string;
  columns: readonly string[];
}

/**
 * The `up` and `down` of a table's search index, for a migration to call.
 *
 * @example
 * const search = searchIndexMigration({ table: 'products', columns: ['name'] });
 * export const up = (knex) => search.up(knex);
 */
export function searchIndexMigration(shape: SearchIndexShape): {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
} {
  return {
    up: async (knex) => {
      if (shape.columns.length === 0) return;
      await dialectFor(knex).searchIndex.create(knex, shape.table, shape.columns);
    },
    down: (knex) => dialectFor(knex).searchIndex.drop(knex, shape.table),
  };
}
