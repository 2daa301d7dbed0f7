// PostgreSQL parts: ILIKE (Unicode folding follows the database's LC_CTYPE; any UTF-8 locale,
// C.UTF-8 included, folds é/É), COLLATE "C" for code-point order, NULLS FIRST/LAST.
import { marks, quoteDouble, type SqlDialect } from './dialect.js';

export const postgres: SqlDialect = {
  name: 'postgres',
  quote: quoteDouble,
  likeCi: (expr, pattern) => ({ sql: `${expr} ILIKE ? ESCAPE '!'`, bindings: [pattern] }),
  compareText: (expr, op) => ({ sql: `${expr} COLLATE "C" ${op} ?`, twice: false }),
  textIn: (expr, count) => ({ sql: `${expr} IN (${marks(count)})`, twice: false }),
  orderText: (expr, isEnum) =>
    isEnum ? `CAST(${expr} AS TEXT) COLLATE "C"` : `${expr} COLLATE "C"`,
  nullsOrder: (desc) => (desc ? ' NULLS LAST' : ' NULLS FIRST'),
  integerParam: 'CAST(? AS BIGINT)',
  jsonText: (expr, key) => `(${expr} ->> '${key}')`,
  // Cast to json so json, jsonb and text columns all work; a non-array gives no elements.
  jsonArrayElements: (expr, alias, keys) => ({
    from:
      `json_array_elements(CASE WHEN json_typeof(CAST(${expr} AS json)) = 'array' ` +
      `THEN CAST(${expr} AS json) END) AS ${quoteDouble(alias)}(v)`,
    texts: keys.map((key) =>
      key === undefined
        ? `(CASE WHEN json_typeof(${quoteDouble(alias)}.v) = 'string' THEN ${quoteDouble(alias)}.v #>> '{}' END)`
        : `(${quoteDouble(alias)}.v ->> '${key}')`,
    ),
  }),
};
