// The three SQL dialects of the list-query engine.
import type { DialectName, SqlDialect } from './dialect.js';
import { mysql } from './mysql.js';
import { postgres } from './postgres.js';
import { sqlite } from './sqlite.js';

export { dialectName, type DialectName, type SqlDialect } from './dialect.js';
export { SQLITE_LOWER } from './sqlite.js';

export const dialects: Record<DialectName, SqlDialect> = { postgres, mysql, sqlite };
