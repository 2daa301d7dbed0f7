// What differs between PostgreSQL, MySQL/MariaDB and SQLite in a list query: identifier quoting,
// case-insensitive LIKE, code-point string order and JSON access. The compiler uses nothing else.
import type { Knex } from 'knex';
import { sqlFamily, type SqlFamily } from '../../sql/dialect.js';

export type DialectName = SqlFamily;

/** SQL fragments use `?` placeholders for Knex's `whereRaw` / `orderByRaw`. */
export interface SqlDialect {
  readonly name: DialectName;
  /** Quotes one identifier (a column or table name, no dots). */
  quote(identifier: string): string;
  /**
   * `expr` matches the LIKE pattern bound to the single `?`, case-insensitively with Unicode case
   * folding, with `!` as the escape character.
   */
  likeCi(expr: string, pattern: string): { sql: string; bindings: unknown[] };
  /** `expr <op> ?` for text in code-point order (byte order of UTF-8) on every database. */
  compareText(
    expr: string,
    op: '=' | '<>' | '<' | '<=' | '>' | '>=',
  ): { sql: string; twice: boolean };
  /** `expr IN (...)` for `count` text values, exact (code points) on every database. */
  textIn(expr: string, count: number): { sql: string; twice: boolean };
  /** The expression ordering text members in code-point order. */
  orderText(expr: string, isEnum: boolean): string;
  /** Suffix giving NULL the same place on every database: first ascending, last descending. */
  nullsOrder(desc: boolean): string;
  /** The placeholder for a whole-number value (PostgreSQL would infer int4 and overflow). */
  readonly integerParam: string;
  /** The text of `key` inside the JSON document `expr`; SQL NULL for a JSON null or a missing key. */
  jsonText(expr: string, key: string): string;
  /**
   * A FROM item with one row per element of the JSON array `expr` (none when it is not an array),
   * and per entry of `keys` the text of the element itself (`undefined`) or of its member `key`.
   */
  jsonArrayElements(
    expr: string,
    alias: string,
    keys: readonly (string | undefined)[],
  ): { from: string; texts: string[] };
}

/** The dialect of a Knex instance (or transaction): `sqlFamily`, as the engine names it. */
export const dialectName: (knex: Knex) => DialectName = sqlFamily;

/** `?, ?, ?` for `count` values. */
export const marks = (count: number): string => Array(count).fill('?').join(', ');

/** Double-quote quoting shared by PostgreSQL and SQLite. */
export const quoteDouble = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;
