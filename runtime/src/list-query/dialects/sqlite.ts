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
    // An ASCII pattern (whose only wildcard is %: escapeLike escapes _): the native LIKE, which
    // folds ASCII, finds every row the Unicode match finds but those where a character that is
    // not ASCII lowers to ASCII text, and only two do: U+0130 İ lowers to i (and a dot), U+212A
    // Kelvin K to k. They matter only to a pattern holding an i or a k; then JavaScript is called
    // for a value holding one of them, and never otherwise.
    const folding = [
      ...(/i/i.test(pattern) ? ['\u0130'] : []),
      ...(/k/i.test(pattern) ? ['\u212a'] : []),
    ];
    if (folding.length === 0) return { sql: `${expr} LIKE ? ESCAPE '!'`, bindings: [pattern] };
    const holds = folding.map((c) => `instr(${expr}, '${c}') > 0`).join(' OR ');
    return {
      sql: `(${expr} LIKE ? ESCAPE '!' OR ((${holds}) AND ${unicode}))`,
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
