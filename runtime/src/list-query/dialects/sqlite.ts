// SQLite parts. Its LIKE folds ASCII only, so both sides go through slicekit_lower(), a
// JavaScript toLowerCase() registered on each better-sqlite3 connection (see sqlite-functions.ts).
// Text compares and orders by bytes (BINARY), which is code-point order for UTF-8.
import { quoteDouble, type SqlDialect } from './dialect.js';

export const SQLITE_LOWER = 'slicekit_lower';

export const sqlite: SqlDialect = {
  name: 'sqlite',
  quote: quoteDouble,
  likeCi: (expr) => `${SQLITE_LOWER}(${expr}) LIKE ${SQLITE_LOWER}(?) ESCAPE '!'`,
  compareText: (expr, op) => ({ sql: `${expr} ${op} ?`, twice: false }),
  orderText: (expr) => expr,
  nullsOrder: () => '',
  integerParam: '?',
  jsonText: (expr, key) => `json_extract(${expr}, '$.${key}')`,
};
