// MySQL/MariaDB (mysql2). Their default collations are case- AND accent-insensitive ('é' LIKE
// 'e'), and pad trailing spaces on '='; comparing LOWER() under utf8mb4_bin keeps case-folding but
// makes accents count, and binary casts make '=' and ordering exact, as on PostgreSQL and SQLite.
// Sequences are counter rows; claims skip locked rows; mysql2 bounds each query.
import type { Knex } from 'knex';
import type { Dialect } from './dialect.js';
import { mysqlUniqueText } from './unique-text.js';
import { mysqlKeyTable } from './key-table.js';
import { mysqlExactTextCollation, mysqlLiveIndex, mysqlLiveUnique } from './mysql-schema.js';
import {
  afterCreate,
  claimSkippingLocked,
  codeOf,
  counterSequences,
  databaseNameOf,
  dropOnServer,
  marks,
  throwawayOnServer,
  watchQueries,
  connectionUsable,
  dropConnection,
  withDatabaseName,
} from './shared.js';

// mysql2's own timeouts and lost connections, and the server refusing or going away.
const UNAVAILABLE_CODES = new Set([
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CLIENT_INTERACTION_TIMEOUT',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_STATEMENT_TIMEOUT',
  'ER_QUERY_TIMEOUT',
]);

// ER_NO_REFERENCED_ROW(_2), ER_ROW_IS_REFERENCED(_2).
const FOREIGN_KEY_ERRNOS = [1216, 1217, 1451, 1452];

interface MysqlConnection {
  query(...args: unknown[]): unknown;
  destroy(): void;
  stream?: { destroy?: () => void };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

/** A row of a tabular `EXPLAIN` (MySQL adds `filtered`; MariaDB shows it only when asked). */
interface ExplainedTable {
  id?: number | null;
  rows?: number | string | null;
  filtered?: number | string | null;
}

/**
 * Rows the top query block of an `EXPLAIN` is expected to give: per table of its join, the rows
 * read times the share its conditions keep. (The JSON form is not used: MariaDB writes the
 * statement's text values into it without escaping them.)
 */
function explainedRows(plan: readonly ExplainedTable[]): number {
  return plan
    .filter((t) => Number(t.id ?? 1) === 1)
    .reduce((product, t) => product * Number(t.rows ?? 0) * (Number(t.filtered ?? 100) / 100), 1);
}

const quote = (identifier: string) => `\`${identifier.replace(/`/g, '``')}\``;

export const mysql: Dialect = {
  name: 'mysql',
  label: 'MySQL',
  client: 'mysql2',

  quote,
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
  // InnoDB reads each row an OFFSET skips whole (from the clustered index): deep pages find
  // their ids on the secondary index first.
  deferredJoinFrom: 2_000,
  exactCountBelow: 10_000,
  jsonText: (expr, key) => `JSON_VALUE(${expr}, '$.${key}')`,
  // JSON_TABLE (MySQL 8, MariaDB 10.6+) yields no row for a JSON null or a non-array. An element
  // is read as JSON so that, as on PostgreSQL and SQLite, only a JSON string counts as text.
  jsonArrayElements: (expr, alias, keys) => {
    const columns = keys.map(
      (key, i) => `${quote(`t${i}`)} JSON PATH '$${key === undefined ? '' : `.${key}`}'`,
    );
    return {
      from: `JSON_TABLE(${expr}, '$[*]' COLUMNS (${columns.join(', ')})) AS ${quote(alias)}`,
      texts: keys.map((key, i) => {
        const value = `${quote(alias)}.${quote(`t${i}`)}`;
        return key === undefined
          ? `(CASE WHEN JSON_TYPE(${value}) = 'STRING' THEN JSON_UNQUOTE(${value}) END)`
          : `JSON_VALUE(${value}, '$')`;
      }),
    };
  },
  // No index serves a substring match: a FULLTEXT index matches words (MySQL's ngram parser
  // n-grams, which MariaDB lacks), not LIKE '%term%', and a B-tree serves prefixes only.
  searchIndexed: () => undefined,
  functionsConnection: () => Promise.resolve(undefined),
  // The optimiser's estimate: per table of the join, the rows it reads times the share its
  // conditions keep (MySQL's `filtered`; MariaDB's is the rows read, more than the rows kept).
  async estimateCount(knex, rows, threshold, run) {
    const { sql, bindings } = rows.toSQL();
    const [plan] = (await run(knex.raw(`EXPLAIN ${sql}`, bindings))) as [ExplainedTable[]];
    const estimate = Math.round(explainedRows(plan));
    return estimate < threshold ? undefined : { count: estimate, kind: 'estimated' };
  },

  // The usual collations would also match `ALICE`, `alicé` and `alice ` to `alice`: the
  // collation's match (which can use the index) is narrowed by a binary one. On a column made
  // with `exactText` MariaDB drops the binary one when planning, so it costs nothing there.
  whereExactly: (query, column, value) =>
    query.where(column, value).whereRaw('binary ?? = binary ?', [column, value]),
  exactTextCollation: mysqlExactTextCollation,
  lockRows: (query) => query.forUpdate(),
  // MariaDB 10.5+ has INSERT ... RETURNING but no UPDATE ... RETURNING, MySQL neither.
  writtenRows: async (query) => {
    await query;
    return undefined;
  },
  // "Do nothing" is spelt as an update of the key to itself: INSERT IGNORE would also hide
  // unrelated errors.
  insertMissing: (insert, key) => insert.merge([key]),
  claim: claimSkippingLocked,
  // No RETURNING: the OK packet carries the first id of the statement. A single row is that id;
  // the ids of several rows need not be consecutive (interleaved auto-increment locks,
  // auto_increment_increment), so they are read back by key, from the first id on.
  async insertReturningIds(db, table, rows, key) {
    const [first] = (await db(table).insert(rows as Record<string, unknown>[])) as number[];
    if (rows.length === 1) return new Map([[String(rows[0]![key]), first!]]);
    const found = (await db(table)
      .select('id', key)
      .where('id', '>=', first!)
      .whereIn(
        key,
        rows.map((row) => row[key] as string),
      )) as Record<string, unknown>[];
    return new Map(found.map((row) => [String(row[key]), row.id as number | string]));
  },

  sequences: {
    ensure: counterSequences.ensure,
    drop: counterSequences.drop,
    async next(knex, s, table) {
      // One UPDATE both increments and reads: the row lock serialises concurrent callers, and
      // LAST_INSERT_ID(expr) puts this statement's new value into the OK packet's insertId, which
      // belongs to this statement alone (no second query that another caller could race).
      const [header] = (await knex.raw(
        'update ?? set value = last_insert_id(value + 1) where name = ? and value < ?',
        [table, s.name, s.max],
      )) as unknown as [{ affectedRows: number; insertId: number | string }];
      return header.affectedRows === 1 ? Number(header.insertId) : undefined;
    },
    failure: counterSequences.failure,
  },

  errors: {
    unique: (e) => e.code === 'ER_DUP_ENTRY' || e.errno === 1062,
    foreignKey: (e) => typeof e.errno === 'number' && FOREIGN_KEY_ERRNOS.includes(e.errno),
    conflict: (e) => e.code === 'ER_LOCK_DEADLOCK' || e.errno === 1213,
    unavailable(e) {
      const code = codeOf(e);
      if (code !== undefined && UNAVAILABLE_CODES.has(code)) return true;
      // mysql2 marks errors that closed the connection as fatal (a SQL error is never fatal).
      return e.fatal === true && e.sqlState === undefined;
    },
    unknownColumn: (e) => e.errno === 1054,
  },

  connectionSettings: (url, limits, pool) => ({
    client: 'mysql2',
    connection: Object.assign(
      {
        uri: url,
        connectTimeout: limits.connectTimeoutMs,
        enableKeepAlive: limits.keepAliveMs > 0,
        keepAliveInitialDelay: limits.keepAliveMs,
        supportBigNumbers: true,
        charset: 'utf8mb4',
        // Date-times are UTC on the wire, whatever the time zone of the server or this machine.
        timezone: 'Z',
        // multipleStatements stays off: a query is one statement, so SQL injected into a query
        // cannot stack another one after it.
      } satisfies Knex.MySql2ConnectionConfig,
      // DATE columns as their 'YYYY-MM-DD' text: a Date at midnight would be another day wherever
      // the process runs west or east of that midnight. mysql2 takes a list of types here; Knex's
      // typings know only the boolean form, hence the separate object.
      { dateStrings: ['DATE'] },
    ),
    // mysql2 has no per-connection statement timeout: each query gets one here, and a connection
    // whose query timed out is dropped.
    pool: {
      ...pool,
      afterCreate: mysql.boundConnection({ queryTimeoutMs: limits.statementTimeoutMs }),
      validate: connectionUsable,
    },
  }),
  // Every query gets mysql2's `timeout` (unless it has one), answered with
  // `PROTOCOL_SEQUENCE_TIMEOUT` when nothing comes back in time; that connection is closed, since
  // its answer may still arrive and would be read as the next query's.
  boundConnection: ({ queryTimeoutMs: timeout }) =>
    afterCreate((connection) => {
      const client = connection as MysqlConnection;
      watchQueries(
        client,
        (error) => {
          if ((error as { code?: unknown }).code !== 'PROTOCOL_SEQUENCE_TIMEOUT') return;
          dropConnection(client, () => {
            client.destroy();
            client.stream?.destroy?.();
          });
        },
        (sql) => {
          if (timeout === undefined) return sql;
          if (typeof sql === 'string') return { sql, timeout };
          return isPlainObject(sql) && sql.timeout === undefined ? { ...sql, timeout } : sql;
        },
      );
    }),
  // The pool's afterCreate gives each query the statement timeout: one without it.
  unboundedStatements: (config) => ({
    ...config,
    pool: { ...config.pool, min: 0, max: 1, afterCreate: mysql.boundConnection({}) },
  }),
  migrating: (_migrator, work) => work(),

  admin: {
    // A connection to the server itself, on no database.
    ensureDatabase: (url, onServer) =>
      onServer(withDatabaseName(url, ''), async (server) => {
        const name = databaseNameOf(url);
        const [rows] = (await server.raw('show databases like ?', [name])) as [unknown[]];
        if (rows.length > 0) return false;
        await server.raw('create database ?? character set utf8mb4 collate utf8mb4_unicode_ci', [
          name,
        ]);
        return true;
      }),
    dropDatabase: (url, onServer) => dropOnServer(url, '', onServer, 'drop database if exists ??'),
    throwawayUrl: throwawayOnServer,
    dropThrowaway: (url, onServer) => mysql.admin.dropDatabase(url, onServer),
    prepare: () => undefined,
  },

  uniqueText: mysqlUniqueText,
  searchIndex: {
    supported: false,
    name: (table) => `${table}__search`,
    create: () => Promise.resolve(),
    drop: () => Promise.resolve(),
  },

  liveUnique: mysqlLiveUnique,
  liveIndex: mysqlLiveIndex,

  keyTable: mysqlKeyTable,

  schema: { rebuildsToChangeEnum: false, enumIsCheckConstraint: false, readsTableToAlter: false },
};
