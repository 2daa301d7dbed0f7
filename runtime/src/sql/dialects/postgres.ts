// PostgreSQL (pg). List queries: ILIKE (Unicode folding follows the database's LC_CTYPE; any
// UTF-8 locale, C.UTF-8 included, folds é/É), COLLATE "C" for code-point order, NULLS FIRST/LAST.
// Sequences are native; claims skip locked rows; the server bounds each statement.
import type { Knex } from 'knex';
import type { Dialect } from './dialect.js';
import { postgresUniqueText } from './unique-text.js';
import { trigramIndex } from './postgres-search.js';
import { postgresKeyTable } from './key-table.js';
import { prepareStatements, preparedStatementsOf } from './postgres-prepared.js';
import {
  afterCreate,
  claimSkippingLocked,
  insertReturning,
  returningRows,
  codeOf,
  dropOnServer,
  marks,
  quoteDouble,
  throwawayOnServer,
  watchQueries,
  connectionUsable,
  dropConnection,
  withDatabaseName,
  databaseNameOf,
  partialIndex,
  partialUniqueIndex,
} from './shared.js';

// SQLSTATEs of a statement cancelled (statement_timeout), a lock not obtained (lock_timeout), too
// many connections, the server shutting down or starting up.
const UNAVAILABLE_STATES = new Set(['57014', '55P03', '53300', '57P01', '57P02', '57P03']);

// node-postgres raises these without a code (Knex puts the statement and ' - ' before them).
const UNAVAILABLE_MESSAGES = [
  'Query read timeout',
  'Connection terminated',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

interface PostgresClient {
  query(...args: unknown[]): unknown;
  getTransactionStatus?(): string | null;
  connection?: { stream?: { destroy?: () => void } };
}

export const postgres: Dialect = {
  name: 'postgres',
  label: 'PostgreSQL',
  client: 'pg',

  quote: quoteDouble,
  likeCi: (expr, pattern) => ({ sql: `${expr} ILIKE ? ESCAPE '!'`, bindings: [pattern] }),
  compareText: (expr, op) => ({ sql: `${expr} COLLATE "C" ${op} ?`, twice: false }),
  textIn: (expr, count) => ({ sql: `${expr} IN (${marks(count)})`, twice: false }),
  orderText: (expr, isEnum) =>
    isEnum ? `CAST(${expr} AS TEXT) COLLATE "C"` : `${expr} COLLATE "C"`,
  nullsOrder: (desc) => (desc ? ' NULLS LAST' : ' NULLS FIRST'),
  integerParam: 'CAST(? AS BIGINT)',
  deferredJoinFrom: 6_000,
  exactCountBelow: 10_000,
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
  // A trigram GIN index on each searched column serves ILIKE '%term%' as it is.
  searchIndexed: () => undefined,
  functionsConnection: () => Promise.resolve(undefined),
  // The planner's row estimate for the rows themselves (its statistics, `reltuples` for a table
  // read whole): no row is read.
  async estimateCount(knex, rows, threshold, run) {
    const { sql, bindings } = rows.toSQL();
    const result = (await run(knex.raw(`EXPLAIN (FORMAT JSON) ${sql}`, bindings))) as {
      rows: { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[];
    };
    const estimate = Math.round(Number(result.rows[0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0));
    return estimate < threshold ? undefined : { count: estimate, kind: 'estimated' };
  },

  // The "C" collation of the compared text is byte order already: a plain '=' is exact.
  whereExactly: (query, column, value) => query.where(column, value),
  exactTextCollation: () => Promise.resolve(undefined),
  lockRows: (query) => query.forUpdate(),
  writtenRows: returningRows,
  insertMissing: (insert) => insert.ignore(),
  claim: claimSkippingLocked,
  insertReturningIds: insertReturning,

  sequences: {
    async ensure(knex, sequences) {
      for (const s of sequences) {
        const type = s.valueType === 'int' ? 'integer' : 'bigint';
        // NO CYCLE: at maxvalue nextval fails (SQLSTATE 2200H) instead of starting over.
        await knex.raw(
          `create sequence if not exists ?? as ${type} start with ${s.start} minvalue ${s.start} maxvalue ${s.max} no cycle`,
          [s.name],
        );
      }
    },
    async drop(knex, sequences) {
      for (const s of sequences) await knex.raw('drop sequence if exists ??', [s.name]);
    },
    async next(knex, s) {
      // nextval is atomic and never hands out a value twice, even across transactions that roll back.
      const result = await knex.raw('select nextval(?::regclass) as value', [`"${s.name}"`]);
      return Number((result as { rows: { value: string }[] }).rows[0]?.value);
    },
    failure(error) {
      const code = codeOf(error as { code?: unknown });
      if (code === '2200H') return 'exhausted';
      if (code === '42P01') return 'missing';
      return undefined;
    },
  },

  errors: {
    unique: (e) => e.code === '23505',
    foreignKey: (e) => e.code === '23503',
    // 40001: serialization failure; 40P01: deadlock detected.
    conflict: (e) => e.code === '40001' || e.code === '40P01',
    unavailable(e) {
      const code = codeOf(e);
      // Class 08: connection exceptions.
      if (code !== undefined) return UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
      const message = typeof e.message === 'string' ? e.message : '';
      return UNAVAILABLE_MESSAGES.some(
        (text) => message === text || message.endsWith(` - ${text}`),
      );
    },
    unknownColumn: (e) => e.code === '42703',
  },

  connectionSettings: (url, limits, pool) => {
    // `prepared_statements=false` in the URL runs every statement unnamed, for a pooler that
    // cannot keep a named one (PgBouncer before 1.21 in transaction mode).
    const { connectionString, prepared } = preparedStatementsOf(url);
    return {
      client: 'pg',
      connection: {
        connectionString,
        connectionTimeoutMillis: limits.connectTimeoutMs,
        // The server cancels a statement that runs longer (SQLSTATE 57014)...
        statement_timeout: limits.statementTimeoutMs,
        // ...and the client stops waiting for an answer that never comes (a silent network) a
        // second later, so a slow statement is cancelled by the server first.
        query_timeout: limits.statementTimeoutMs + 1000,
        keepAlive: limits.keepAliveMs > 0,
        keepAliveInitialDelayMillis: limits.keepAliveMs,
      } satisfies Knex.PgConnectionConfig,
      // Names each connection's data statements, and drops a connection whose query timed out:
      // its late answer would confuse the next query.
      pool: {
        ...pool,
        afterCreate: postgres.boundConnection({ prepareStatements: prepared }),
        validate: connectionUsable,
      },
    };
  },
  // Data statements run under a name unless `prepareStatements` is false (postgres-prepared.ts).
  // node-postgres' `query_timeout` (set in the connection settings) answers `Query read timeout`;
  // that connection is closed, since its answer may still arrive and be read as the next query's.
  boundConnection: (bounds) =>
    afterCreate((connection) => {
      const client = connection as PostgresClient;
      if (bounds.prepareStatements !== false) prepareStatements(client);
      watchQueries(client, (error) => {
        if ((error as { message?: unknown }).message !== 'Query read timeout') return;
        dropConnection(client, () => client.connection?.stream?.destroy?.());
      });
    }),
  unboundedStatements(config) {
    const given = config.connection as string | Knex.PgConnectionConfig;
    const connection = typeof given === 'string' ? { connectionString: given } : { ...given };
    delete connection.statement_timeout;
    delete connection.query_timeout;
    return { ...config, connection, pool: { ...config.pool, min: 0, max: 1 } };
  },
  migrating: (_migrator, work) => work(),

  admin: {
    // Through the maintenance database `postgres`.
    ensureDatabase: (url, onServer) =>
      onServer(withDatabaseName(url, 'postgres'), async (server) => {
        const name = databaseNameOf(url);
        const found = await server('pg_database').where({ datname: name }).first('datname');
        if (found) return false;
        await server.raw('create database ??', [name]);
        return true;
      }),
    dropDatabase: (url, onServer) =>
      dropOnServer(url, 'postgres', onServer, 'drop database if exists ?? with (force)'),
    throwawayUrl: throwawayOnServer,
    dropThrowaway: (url, onServer) => postgres.admin.dropDatabase(url, onServer),
    prepare: () => undefined,
  },

  uniqueText: postgresUniqueText,
  searchIndex: trigramIndex,

  liveUnique: partialUniqueIndex,
  liveIndex: partialIndex,

  keyTable: postgresKeyTable,

  schema: { rebuildsToChangeEnum: false, enumIsCheckConstraint: true, readsTableToAlter: false },
};
