// SQLite parts. Its LIKE folds ASCII only, so both sides go through slicekit_lower(), a
// JavaScript toLowerCase() registered on each better-sqlite3 connection (see sqlite-functions.ts).
// Text compares and orders by bytes (BINARY), which is code-point order for UTF-8.
import { marks, quoteDouble, type SqlDialect } from './dialect.js';

export const SQLITE_LOWER = 'slicekit_lower';

export const sqlite: SqlDialect = {
  name: 'sqlite',
  quote: quoteDouble,
  likeCi: (expr, pattern) => {
    const unicode = `${SQLITE_LOWER}(${expr}) LIKE ${SQLITE_LOWER}(?) ESCAPE '!'`;
    // eslint-disable-next-line no-control-regex
    if (!/^[\x00-\x7f]*$/.test(pattern)) return { sql: unicode, bindings: [pattern] };
    // An ASCII pattern against an all-ASCII value (as many characters as bytes): the native
    // LIKE, which folds ASCII, gives the same answer without calling into JavaScript per row.
    return {
      sql: `(CASE WHEN length(${expr}) = length(CAST(${expr} AS BLOB)) THEN ${expr} LIKE ? ESCAPE '!' ELSE ${unicode} END)`,
      bindings: [pattern, pattern],
    };
  },
  compareText: (expr, op) => ({ sql: `${expr} ${op} ?`, twice: false }),
  textIn: (expr, count) => ({ sql: `${expr} IN (${marks(count)})`, twice: false }),
  orderText: (expr) => expr,
  nullsOrder: () => '',
  integerParam: '?',
  jsonText: (expr, key) => `json_extract(${expr}, '$.${key}')`,
  jsonArrayElements: (expr, alias, keys) => ({
    from: `json_each(CASE WHEN json_type(${expr}) = 'array' THEN ${expr} END) AS ${quoteDouble(alias)}`,
    texts: keys.map((key) =>
      key === undefined
        ? `(CASE WHEN ${quoteDouble(alias)}.type = 'text' THEN ${quoteDouble(alias)}.value END)`
        : `(CASE WHEN ${quoteDouble(alias)}.type = 'object' THEN json_extract(${quoteDouble(alias)}.value, '$.${key}') END)`,
    ),
  }),
};
