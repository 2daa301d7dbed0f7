// What each dialect implements for the indexes over the live rows of a soft-deleting table
// (shared.ts has PostgreSQL's and SQLite's partial indexes, mysql-schema.ts MySQL's).
import type { Knex } from 'knex';

/**
 * A unique index over the live rows (`deletedColumn` null), so a deleted row's values can be
 * taken again; made and dropped by migrations (`liveUniqueMigration`).
 */
export interface LiveUniqueIndex {
  create(
    knex: Knex,
    table: string,
    columns: readonly string[],
    deletedColumn: string,
  ): Promise<void>;
  drop(knex: Knex, table: string, columns: readonly string[]): Promise<void>;
}

/**
 * A list index over the live rows (`deletedColumn` null): `scope` (the columns a scoped list
 * compares by equality), then `columns`; made and dropped by migrations (`liveIndexMigration`).
 * `drop` takes every column, scope first, as the name is made of them.
 */
export interface LiveListIndex {
  create(
    knex: Knex,
    table: string,
    scope: readonly string[],
    columns: readonly string[],
    deletedColumn: string,
  ): Promise<void>;
  drop(knex: Knex, table: string, columns: readonly string[]): Promise<void>;
  /**
   * Whether an index kept only for counting a scope's live rows (`counts`) is made: where the
   * database reads a narrow index of equal values in few pages, and where one more index of the
   * table costs its planner little.
   */
  readonly countIndexes: boolean;
}
