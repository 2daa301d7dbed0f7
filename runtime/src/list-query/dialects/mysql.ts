// MySQL/MariaDB parts. Their default collations are case- AND accent-insensitive ('é' LIKE 'e'),
// and pad trailing spaces on '='; comparing LOWER() under utf8mb4_bin keeps case-folding but
// makes accents count, and binary casts make '=' and ordering exact, as on PostgreSQL and SQLite.
import type { SqlDialect } from './dialect.js';

export const mysql: SqlDialect = {
  name: 'mysql',
  quote: (identifier) => `\`${identifier.replace(/`/g, '``')}\``,
  likeCi: (expr, pattern) => ({
    sql: `LOWER(${expr}) LIKE LOWER(?) COLLATE utf8mb4_bin ESCAPE '!'`,
    bindings: [pattern],
  }),
  // For '=' the plain comparison keeps an index usable; the binary one makes it exact.
  compareText: (expr, op) =>
    op === '='
      ? { sql: `(${expr} = ? AND CAST(${expr} AS BINARY) = CAST(? AS BINARY))`, twice: true }
      : { sql: `CAST(${expr} AS BINARY) ${op} CAST(? AS BINARY)`, twice: false },
  orderText: (expr) => `CAST(${expr} AS BINARY)`,
  // NULL already sorts first ascending and last descending.
  nullsOrder: () => '',
  integerParam: '?',
  jsonText: (expr, key) => `JSON_VALUE(${expr}, '$.${key}')`,
};
