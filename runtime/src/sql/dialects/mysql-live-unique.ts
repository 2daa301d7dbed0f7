// MySQL/MariaDB's unique indexes among live rows (soft delete). No partial index: a generated
// column, 1 for a live row and NULL for a deleted one, ends each unique index, and a unique index
// never compares NULLs, so deleted rows never collide.
import type { Dialect } from './dialect.js';
import { uniqueIndexName } from './shared.js';

/** The generated column ending a live unique index: 1 for a live row, NULL for a deleted one. */
const LIVE_COLUMN = 'slicekit_live';

export const mysqlLiveUnique: Dialect['liveUnique'] = {
  create: async (knex, table, columns, deletedColumn) => {
    if (!(await knex.schema.hasColumn(table, LIVE_COLUMN))) {
      await knex.raw(`ALTER TABLE ?? ADD COLUMN ?? TINYINT AS (IF(?? IS NULL, 1, NULL)) STORED`, [
        table,
        LIVE_COLUMN,
        deletedColumn,
      ]);
    }
    await knex.raw(`CREATE UNIQUE INDEX ?? ON ?? (${columns.map(() => '??').join(', ')}, ??)`, [
      uniqueIndexName(table, columns),
      table,
      ...columns,
      LIVE_COLUMN,
    ]);
  },
  drop: async (knex, table, columns) => {
    await knex.raw('DROP INDEX ?? ON ??', [uniqueIndexName(table, columns), table]);
    // The marker goes with its last index, so the deleted-on column it reads can go too.
    const [rows] = (await knex.raw(
      'SELECT COUNT(*) AS n FROM information_schema.statistics ' +
        'WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?',
      [table, LIVE_COLUMN],
    )) as [{ n: number | string }[]];
    if (Number(rows[0]?.n) === 0) {
      await knex.schema.alterTable(table, (t) => t.dropColumn(LIVE_COLUMN));
    }
  },
};
