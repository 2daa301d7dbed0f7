// What each dialect implements for a text column's unique index (unique-text.ts has the three).
import type { Knex } from 'knex';

/** The unique index of one text column (`uniqueIndexMigration`), per database. */
export interface UniqueTextIndex {
  /** Makes it over the rows the table holds already (fails on a duplicate among them). */
  create(knex: Knex, table: string, column: string, ignoreCase: boolean): Promise<void>;
  /** Drops it (and what goes with it). */
  drop(knex: Knex, table: string, column: string, ignoreCase: boolean): Promise<void>;
  /** Narrows `query` to rows whose `column` holds `value` as the index compares them. */
  whereSame(
    query: Knex.QueryBuilder,
    column: string,
    value: string,
    ignoreCase: boolean,
  ): Knex.QueryBuilder;
  /** What `create` makes, in a line of SQL or a comment, for an upgrade's preview. */
  describe(table: string, column: string, ignoreCase: boolean): string;
}
