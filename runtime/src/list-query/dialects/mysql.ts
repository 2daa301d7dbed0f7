// MySQL/MariaDB parts. Their default collations are case- AND accent-insensitive ('é' LIKE 'e'),
// and pad trailing spaces on '='; comparing LOWER() under utf8mb4_bin keeps case-folding but
// makes accents count, and binary casts make '=' and ordering exact, as on PostgreSQL and SQLite.
import { marks, type SqlDialect } from './dialect.js';

export const mysql: SqlDialect = {
  name: 'mysql',
  quote: (identifier) => `\`${identifier.replace(/`/g, '``')}\``,
  // utf8mb4_general_ci's native LIKE (case- and accent-insensitive, so it keeps every row the
  // exact test keeps) discards most rows cheaply; LOWER() under utf8mb4_bin then runs on the few
  // that are left and makes accents count.
  likeCi: (expr, pattern) => ({
    sql:
      `(${expr} LIKE ? COLLATE utf8mb4_general_ci ESCAPE '!' AND ` +
      `LOWER(${expr}) LIKE LOWER(?) COLLATE utf8mb4_bin ESCAPE '!')`,
    bindings: [pattern, pattern],
  }),
  // For '=' the plain comparison keeps an index usable; the binary one makes it exact.
  compareText: (expr, op) =>
    op === '='
      ? { sql: `(${expr} = ? AND CAST(${expr} AS BINARY) = CAST(? AS BINARY))`, twice: true }
      : { sql: `CAST(${expr} AS BINARY) ${op} CAST(? AS BINARY)`, twice: false },
  textIn: (expr, count) => ({
    sql:
      `(${expr} IN (${marks(count)}) AND ` +
      `CAST(${expr} AS BINARY) IN (${Array(count).fill('CAST(? AS BINARY)').join(', ')}))`,
    twice: true,
  }),
  orderText: (expr) => `CAST(${expr} AS BINARY)`,
  // NULL already sorts first ascending and last descending.
  nullsOrder: () => '',
  integerParam: '?',
  jsonText: (expr, key) => `JSON_VALUE(${expr}, '$.${key}')`,
  // JSON_TABLE (MySQL 8, MariaDB 10.6+) yields no row for a JSON null or a non-array. An element
  // is read as JSON so that, as on PostgreSQL and SQLite, only a JSON string counts as text.
  jsonArrayElements: (expr, alias, keys) => {
    const q = (identifier: string) => `\`${identifier}\``;
    const columns = keys.map(
      (key, i) => `${q(`t${i}`)} JSON PATH '$${key === undefined ? '' : `.${key}`}'`,
    );
    return {
      from: `JSON_TABLE(${expr}, '$[*]' COLUMNS (${columns.join(', ')})) AS ${q(alias)}`,
      texts: keys.map((key, i) => {
        const value = `${q(alias)}.${q(`t${i}`)}`;
        return key === undefined
          ? `(CASE WHEN JSON_TYPE(${value}) = 'STRING' THEN JSON_UNQUOTE(${value}) END)`
          : `JSON_VALUE(${value}, '$')`;
      }),
    };
  },
};
