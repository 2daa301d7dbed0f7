// SQLite (better-sqlite3). Its LIKE folds ASCII only, so both sides go through slicekit_lower(), a
// JavaScript toLowerCase() registered on the connection (sqlite-functions.ts). Text compares and
// orders by bytes (BINARY), which is code-point order for UTF-8. One writer at a time: no row
// locks, claims are one UPDATE; sequences are counter rows; no idempotency key table.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Dialect } from './dialect.js';
import { sqliteUniqueText } from './unique-text.js';
import {
  afterCreate,
  codeOf,
  counterSequences,
  insertReturning,
  returningRows,
  marks,
  partialIndex,
  partialUniqueIndex,
  quoteDouble,
} from './shared.js';
import { registerSqliteFunctions, SQLITE_LOWER } from './sqlite-functions.js';
import {
  createStatements,
  dropStatements,
  ftsCondition,
  ftsName,
  readSearchIndexes,
  runAll,
} from './sqlite-search.js';

interface SqliteDatabase {
  pragma(source: string): unknown;
}

const pragma = (connection: unknown, source: string) =>
  (connection as SqliteDatabase).pragma(source);

const waitWhenBusy = (connection: unknown, ms = 5000) =>
  pragma(connection, `busy_timeout = ${Math.max(0, Math.floor(ms))}`);

const removeFiles = (url: string) =>
  Promise.all(['', '-wal', '-shm'].map((suffix) => rm(url + suffix, { force: true }))).then(
    () => undefined,
  );

export const sqlite: Dialect = {
  name: 'sqlite',
  label: 'SQLite',
  client: 'better-sqlite3',

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
  deferredJoinFrom: undefined,
  // The bound is `estimateCount`'s probe: 5,000 index entries stepped over cost about a page.
  exactCountBelow: 5_000,
  jsonText: (expr, key) => `json_extract(${expr}, '$.${key}')`,
  jsonArrayElements: (expr, alias, keys) => ({
    from: `json_each(CASE WHEN json_type(${expr}) = 'array' THEN ${expr} END) AS ${quoteDouble(alias)}`,
    texts: keys.map((key) =>
      key === undefined
        ? `(CASE WHEN ${quoteDouble(alias)}.type = 'text' THEN ${quoteDouble(alias)}.value END)`
        : `(CASE WHEN ${quoteDouble(alias)}.type = 'object' THEN json_extract(${quoteDouble(alias)}.value, '$.${key}') END)`,
    ),
  }),
  searchIndexed: ftsCondition,
  // slicekit_lower() must exist on the very connection that runs the query. For a search, the
  // search indexes are read from its schema when it changed (a statement of its own, which a
  // list without a search does not pay).
  async functionsConnection(knex, options) {
    const client = knex.client as {
      acquireConnection(): Promise<unknown>;
      releaseConnection(connection: unknown): Promise<unknown>;
    };
    const connection = await client.acquireConnection();
    try {
      registerSqliteFunctions(connection);
      if (options?.search) readSearchIndexes(knex.client, connection);
    } catch (error) {
      // A locked file (SQLITE_BUSY) fails the schema read: the connection goes back to the pool.
      await client.releaseConnection(connection);
      throw error;
    }
    return connection;
  },

  // SQLite keeps no row estimate (sqlite_stat1, after an ANALYZE, holds only the average rows
  // per index prefix: nothing for a range, a search or a join, and far off for a skewed owner).
  // Whether a row follows the first `threshold` (`LIMIT 1 OFFSET threshold`, which skips them in
  // the index without handing them on): past it the answer is a lower bound at the cost of
  // skipping that many; otherwise the caller counts the few there are exactly.
  async estimateCount(knex, rows, threshold, run) {
    const found = (await run(rows.clone().limit(1).offset(threshold))) as unknown[];
    return found.length > 0 ? { count: threshold + 1, kind: 'lowerBound' } : undefined;
  },

  // BINARY collation: '=' is byte for byte already.
  whereExactly: (query, column, value) => query.where(column, value),
  exactTextCollation: () => Promise.resolve(undefined),
  // The single writer already serialises a load-change-save.
  lockRows: (query) => query,
  writtenRows: returningRows,
  insertMissing: (insert) => insert.ignore(),
  // Each writing statement runs under the database's single write lock: one UPDATE of the due
  // rows claims them, and no other claimer can interleave.
  insertReturningIds: insertReturning,
  async claim(knex, { table, columns, due, stamp, token }) {
    await stamp(knex(table).whereIn('id', due(knex(table).select('id'))));
    return knex(table)
      .select(columns as string[])
      .where('claim_token', token)
      .orderBy('id');
  },

  sequences: {
    ensure: counterSequences.ensure,
    drop: counterSequences.drop,
    async next(knex, s, table) {
      // The read of `value` and the write of `value + 1` run under the single write lock, so
      // they cannot interleave with another caller's.
      const rows = (await knex.raw(
        'update ?? set value = value + 1 where name = ? and value < ? returning value',
        [table, s.name, s.max],
      )) as { value: number | string }[];
      return rows.length === 1 ? Number(rows[0]?.value) : undefined;
    },
    failure: counterSequences.failure,
  },

  errors: {
    unique: (e) => e.code === 'SQLITE_CONSTRAINT_UNIQUE',
    foreignKey: (e) => e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    // A WAL snapshot too old to write. A plain SQLITE_BUSY is not one: SQLite answers it after
    // its busy timeout has already been waited out, on the event loop's thread, so it is an
    // unavailable database (503 with Retry-After) instead of a conflict to wait for again.
    conflict: (e) => e.code === 'SQLITE_BUSY_SNAPSHOT',
    // The file stayed locked for the whole busy timeout (or waiting would deadlock).
    unavailable: (e) => codeOf(e)?.startsWith('SQLITE_BUSY') === true,
    unknownColumn: (e) => typeof e.message === 'string' && e.message.includes('no such column'),
  },

  connectionSettings: (url, limits) => ({
    client: 'better-sqlite3',
    connection: { filename: url },
    useNullAsDefault: true,
    // A write waits this long for a file another process has locked, then fails SQLITE_BUSY.
    // better-sqlite3 waits on the event loop's thread: keep it short. SQLite checks foreign keys
    // (a reference's constraint and its onDelete) only on a connection that asks for them.
    pool: {
      // slicekit_lower() too: a unique index ignoring case is on it, so every write needs it.
      afterCreate: afterCreate((connection) => {
        pragma(connection, 'foreign_keys = ON');
        waitWhenBusy(connection, limits.busyTimeoutMs);
        registerSqliteFunctions(connection);
      }),
    },
  }),
  boundConnection: ({ busyTimeoutMs }) =>
    afterCreate((connection) => {
      waitWhenBusy(connection, busyTimeoutMs);
      registerSqliteFunctions(connection);
    }),
  // No statement timeout to lift.
  unboundedStatements: () => null,
  // SQLite alters a table by copying it and dropping the old one, which with foreign keys on
  // would delete (or refuse) the rows referring to it: migrations run with them off, as SQLite
  // advises, on its one connection.
  async migrating(migrator, work) {
    await migrator.raw('PRAGMA foreign_keys = OFF');
    try {
      return await work();
    } finally {
      await migrator.raw('PRAGMA foreign_keys = ON');
    }
  },

  admin: {
    // The file is created by the first connection.
    ensureDatabase: () => Promise.resolve(false),
    dropDatabase: (url) => removeFiles(url),
    throwawayUrl: () => join(mkdtempSync(join(tmpdir(), 'app-test-')), 'test.sqlite'),
    dropThrowaway: async (url) => {
      await removeFiles(url);
      await rm(dirname(url), { recursive: true, force: true });
    },
    prepare(url) {
      if (url !== ':memory:') mkdirSync(dirname(resolve(url)), { recursive: true });
    },
  },

  uniqueText: sqliteUniqueText,
  searchIndex: {
    supported: true,
    name: ftsName,
    create: (knex, table, columns) => runAll(knex, createStatements(table, columns)),
    drop: (knex, table) => runAll(knex, dropStatements(table)),
  },

  liveUnique: partialUniqueIndex,
  // A count reads one entry per row of any index (no deduplication), and counts without a WHERE
  // clause skip rows altogether: the tenant alone made a tenant's count no faster (3.37 against
  // 3.51 ms over one tenant's 100,000 rows) and every write slower.
  liveIndex: { ...partialIndex, countIndexes: false },

  keyTable: undefined,

  schema: { rebuildsToChangeEnum: true, enumIsCheckConstraint: false, readsTableToAlter: true },
};
