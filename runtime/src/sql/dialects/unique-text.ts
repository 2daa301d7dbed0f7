// The unique index of one text column, comparing exactly (byte for byte) or ignoring case the way
// the list query's case-insensitive match folds it, so that a value a case-insensitive filter
// finds is the value the index refuses twice:
// - PostgreSQL: a plain unique constraint (its text '=' is exact), or a unique index on lower(),
//   which folds with the database's UTF-8 collation as ILIKE does;
// - SQLite: a plain unique index, or one on slicekit_lower() (JavaScript toLowerCase(), the
//   function the list query folds with), registered on every connection the app opens;
// - MySQL/MariaDB: their collations fold case and accents and pad trailing spaces, so the index
//   is on an invisible stored column holding the value as bytes (CAST AS BINARY), or its LOWER()
//   as bytes, the list query's LOWER() under a binary collation.
import type { UniqueTextIndex } from './unique-text-index.js';
import { quoteDouble } from './shared.js';
import { SQLITE_LOWER } from './sqlite-functions.js';

/**
 * The index's name: the one Knex gives `table.unique([column])`, and another one where case is
 * ignored, so that an upgrade can make one before it drops the other.
 */
export const uniqueIndexName = (table: string, column: string, ignoreCase = false): string =>
  `${table}_${column}_unique${ignoreCase ? '_ci' : ''}`.toLowerCase().replace(/[-.]/g, '_');

/** A unique index on `fold(column)` where case is ignored, else Knex's unique constraint. */
function foldingIndex(fold: string): UniqueTextIndex {
  const folded = (column: string) => `${fold}(${quoteDouble(column)})`;
  const createSql = (table: string, column: string) =>
    `CREATE UNIQUE INDEX ${quoteDouble(uniqueIndexName(table, column, true))} ON ${quoteDouble(table)} (${folded(column)})`;
  return {
    async create(knex, table, column, ignoreCase) {
      if (ignoreCase) await knex.raw(createSql(table, column));
      else await knex.schema.alterTable(table, (t) => t.unique([column]));
    },
    async drop(knex, table, column, ignoreCase) {
      if (ignoreCase) {
        await knex.raw(`DROP INDEX ${quoteDouble(uniqueIndexName(table, column, true))}`);
      } else await knex.schema.alterTable(table, (t) => t.dropUnique([column]));
    },
    whereSame: (query, column, value, ignoreCase) =>
      ignoreCase
        ? query.whereRaw(`${fold}(??) = ${fold}(?)`, [column, value])
        : query.where(column, value),
    describe: (table, column, ignoreCase) =>
      ignoreCase
        ? createSql(table, column)
        : `-- unique (${column}) as table.unique([${JSON.stringify(column)}])`,
  };
}

export const postgresUniqueText = foldingIndex('lower');
export const sqliteUniqueText = foldingIndex(SQLITE_LOWER);

/** The longest key of an InnoDB index, in bytes (768 characters of utf8mb4). */
const MYSQL_KEY_BYTES = 3072;

/** The invisible column the MySQL index is on (two underscores: no spec field's column has them). */
const keyColumn = (column: string, ignoreCase: boolean) =>
  `${column}__${ignoreCase ? 'lower' : 'bytes'}`;
/** The bytes the index compares: of `mark` (a Knex binding or a quoted column), lowered or not. */
const binary = (ignoreCase: boolean, mark = '??') =>
  ignoreCase ? `CAST(LOWER(${mark}) AS BINARY)` : `CAST(${mark} AS BINARY)`;

export const mysqlUniqueText: UniqueTextIndex = {
  async create(knex, table, column, ignoreCase) {
    const [[found]] = (await knex.raw(
      'SELECT CHARACTER_OCTET_LENGTH AS octets FROM information_schema.COLUMNS ' +
        'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
      [table, column],
    )) as [{ octets: number | null }[]];
    const octets = Number(found?.octets ?? 0);
    if (!(octets > 0)) throw new Error(`${table}.${column} is not a text column with a length`);
    if (octets > MYSQL_KEY_BYTES) {
      throw new Error(
        `${table}.${column} holds up to ${octets} bytes; a unique index holds at most ` +
          `${MYSQL_KEY_BYTES} on MySQL: give the field a maxLength of at most ${MYSQL_KEY_BYTES / 4}`,
      );
    }
    // As wide as an index key may be, not as the column: a later wider maxLength still fits.
    await knex.raw(
      `ALTER TABLE ?? ADD COLUMN ?? VARBINARY(${MYSQL_KEY_BYTES}) AS (${binary(ignoreCase)}) ` +
        'STORED INVISIBLE, ADD UNIQUE INDEX ?? (??)',
      [
        table,
        keyColumn(column, ignoreCase),
        column,
        uniqueIndexName(table, column, ignoreCase),
        keyColumn(column, ignoreCase),
      ],
    );
  },
  async drop(knex, table, column, ignoreCase) {
    await knex.raw('ALTER TABLE ?? DROP INDEX ??, DROP COLUMN ??', [
      table,
      uniqueIndexName(table, column, ignoreCase),
      keyColumn(column, ignoreCase),
    ]);
  },
  whereSame: (query, column, value, ignoreCase) =>
    query.whereRaw(`${binary(ignoreCase)} = ${binary(ignoreCase, '?')}`, [column, value]),
  describe: (table, column, ignoreCase) =>
    `ALTER TABLE \`${table}\` ADD COLUMN \`${keyColumn(column, ignoreCase)}\` VARBINARY(${MYSQL_KEY_BYTES}) ` +
    `AS (${binary(ignoreCase, `\`${column}\``)}) STORED INVISIBLE, ` +
    `ADD UNIQUE INDEX \`${uniqueIndexName(table, column, ignoreCase)}\` (\`${keyColumn(column, ignoreCase)}\`)`,
};
