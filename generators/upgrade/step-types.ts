// The shape of a migration's steps (steps.ts makes them; the migration template writes them as
// code and the dry run, sql.ts, runs them).
import type { ForeignKey, JoinTable } from '../entity/views/foreign-keys.js';
import type { Column, TableIndex } from '../entity/views/migration.js';

/** One builder call inside `alterTable`. */
export type Line =
  | { add: Column }
  | { alter: Column }
  | { drop: string }
  | { rename: { from: string; to: string } }
  | { index: TableIndex }
  | { dropIndex: TableIndex }
  /** A foreign key; on SQLite Knex rebuilds the table to add or drop one. */
  | { foreign: ForeignKey }
  | { dropForeign: ForeignKey };

/**
 * An enum column's values changed. PostgreSQL keeps them in a check constraint knex's alter()
 * cannot change, and SQLite cannot change a check constraint at all: there the table is rebuilt
 * as it stands at this step (`rebuild`), and its rows copied.
 */
export interface EnumChange {
  table: string;
  column: Column;
  constraint: string;
  values: string[];
  rebuild: { columns: Column[]; indexes: TableIndex[]; foreignKeys: ForeignKey[] };
}

/** A text column's unique index, as `uniqueIndexMigration` takes it. */
export interface UniqueTextIndex {
  table: string;
  column: string;
  ignoreCase?: boolean;
}

/** One statement (or block) of a migration; exactly one key is set. */
export type Step =
  | { comment: string }
  | { alterTable: { table: string; lines: Line[] } }
  /** Rows whose column is null (or holds one of `values`) take `value`. */
  | { fill: { table: string; column: string; value: unknown; values?: string[] } }
  /** Values longer than `length` are cut to it. */
  | { cut: { table: string; column: string; length: number } }
  | { enumChange: EnumChange }
  | { renameCheck: { table: string; from: string; to: string } }
  | { sequence: { options: Record<string, unknown>; up: boolean } }
  /** A many-to-many's join table, made as the create migration makes it. */
  | { createJoinTable: JoinTable }
  | { dropTable: string }
  /** A text column's unique index (`uniqueIndexMigration`) made (`up`) or dropped. */
  | { uniqueIndex: UniqueTextIndex & { up: boolean } }
  /** The table's search index made over `columns` (`up`) or dropped. */
  | { searchIndex: { table: string; columns: string[]; up: boolean } }
  /** A unique index over the live rows of a soft-deleting table, made (`up`) or dropped. */
  | { liveUnique: { table: string; columns: string[]; up: boolean } }
  /** A list index over the live rows of a soft-deleting table, made (`up`) or dropped. */
  | {
      liveIndex: {
        table: string;
        scope: string[];
        columns: string[];
        counts?: true;
        up: boolean;
      };
    }
  /** Existing rows numbered by the sequence, oldest first. */
  | {
      number: {
        table: string;
        column: string;
        options: Record<string, unknown>;
        integer: boolean;
        order: string[];
      };
    };

export interface MigrationSteps {
  up: Step[];
  down: Step[];
}
