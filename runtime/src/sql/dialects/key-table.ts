// The idempotency key table on PostgreSQL and MySQL/MariaDB: its DDL (the migrations') and the
// statements the Knex-backed store sends, each as SQL with its bindings in the dialect's order.
// SQLite has none: there the keys stay in the process.
import {
  COLUMNS,
  fenced,
  perTable,
  preparedName,
  type BoundSql,
  type FencedStatements,
  type ReservationValues,
  type SendSql,
} from './key-statements.js';

export type { BoundSql, CompletionValues, ReservationValues, SendSql } from './key-statements.js';

/** Columns the key table gained after its first release, oldest first: nullable text each. */
export const KEY_TABLE_ADDED_COLUMNS = ['fingerprint', 'response_headers'] as const;

/** The key table's statements on one database, for one table. */
export interface KeyTableStatements extends FencedStatements {
  createTable(table: string): string[];
  dropTable(table: string): string;
  /** Adds the columns an older table lacks; run each tolerating `nothingToChange`. */
  addColumns(table: string): string[];
  dropAddedColumns(table: string): string[];
  /** The error an `addColumns` / `dropAddedColumns` statement gives when there is nothing to do. */
  nothingToChange(error: unknown): boolean;
  /** Fails (`errors.unknownColumn`) on a table an upgrade has not reached. */
  probeColumns(table: string): string;
  /**
   * Reserves `values.key` when it is free. Answers the rows holding the key after the statement
   * (ours among them when it was free), or `'reserved'` when the reservation is known to be ours
   * without a read; undefined when the key is taken and must be read with `select`.
   */
  reserve(
    send: SendSql,
    table: string,
    values: ReservationValues,
  ): Promise<unknown[] | 'reserved' | undefined>;
  /**
   * The statements for the server behind `send`, where servers of one family differ (MariaDB
   * 10.5+ answers `INSERT ... RETURNING`, MySQL does not). Asked once, when the store starts.
   */
  forServer?(send: SendSql): Promise<KeyTableStatements>;
  purgeBatch(table: string, nowMs: number, limit: number): BoundSql;
  /** Rows a statement's result says it changed. */
  changedRows(result: unknown): number;
  /** The rows a select's result holds. */
  rowsOf(result: unknown): unknown[];
  /** A statement that lost a deadlock and was rolled back: safe to send again. */
  retryable(error: unknown): boolean;
}

const errnoOf = (error: unknown) => (error as { errno?: unknown }).errno;

function quoteParts(identifier: string, mark: string): string {
  return identifier
    .split('.')
    .map((part) => `${mark}${part.replaceAll(mark, mark + mark)}${mark}`)
    .join('.');
}

const pq = (table: string) => quoteParts(table, '"');
/** Index names are unqualified in PostgreSQL: the index lives in its table's schema. */
const indexName = (table: string) =>
  `"${`${table.split('.').pop() ?? table}_expires_at_ms_idx`.slice(0, 63)}"`;

/**
 * Reserve or read, one statement. A reservation it writes commits without waiting for its WAL
 * flush (`synchronous_commit` off for this statement's own transaction, read when it commits):
 * WAL is flushed in order, so the flush of any later commit (the handler's write, the
 * completion) makes the reservation durable too, and a server crash that loses it loses
 * everything after it, so no outcome is lost with it (docs/stores.md). It spares each new key
 * one of its three flushes. The settings row is joined to the inserted one: it is read, and the
 * setting made, whenever this statement inserts.
 */
const postgresReserve = perTable((table) => {
  const sql = `WITH commit_mode AS MATERIALIZED (
  SELECT set_config('synchronous_commit', 'off', true) AS setting
), inserted AS (
  INSERT INTO ${pq(table)} (storage_key, ${COLUMNS})
  VALUES (?, ?, NULL, '', ?, ?, ?, ?, NULL)
  ON CONFLICT (storage_key) DO NOTHING
  RETURNING ${COLUMNS}
)
SELECT ${COLUMNS} FROM inserted CROSS JOIN commit_mode
UNION ALL
SELECT ${COLUMNS} FROM ${pq(table)} WHERE storage_key = ?`;
  return { sql, name: preparedName(sql) };
});

export const postgresKeyTable: KeyTableStatements = {
  /**
   * The storage key is ASCII (prefix + hex digest) compared byte for byte: collation "C".
   * Times are epoch milliseconds so no session time zone can shift them.
   */
  createTable: (table) => [
    `CREATE TABLE IF NOT EXISTS ${pq(table)} (
  storage_key varchar(255) COLLATE "C" NOT NULL PRIMARY KEY,
  status_code smallint NOT NULL,
  body bytea NULL,
  content_type text NOT NULL,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL,
  reservation varchar(64) NOT NULL,
  fingerprint text NULL,
  response_headers text NULL
)`,
    `CREATE INDEX IF NOT EXISTS ${indexName(table)} ON ${pq(table)} (expires_at_ms)`,
  ],
  dropTable: (table) => `DROP TABLE IF EXISTS ${pq(table)}`,
  // IF NOT EXISTS, never an error to catch: a failed statement would abort the transaction a
  // Knex migration runs in.
  addColumns: (table) =>
    KEY_TABLE_ADDED_COLUMNS.map(
      (c) => `ALTER TABLE ${pq(table)} ADD COLUMN IF NOT EXISTS ${c} text NULL`,
    ),
  dropAddedColumns: (table) =>
    KEY_TABLE_ADDED_COLUMNS.map((c) => `ALTER TABLE ${pq(table)} DROP COLUMN IF EXISTS ${c}`),
  nothingToChange: () => false,
  probeColumns: (table) =>
    `SELECT ${KEY_TABLE_ADDED_COLUMNS.join(', ')} FROM ${pq(table)} WHERE false`,
  // Reserve or read, one statement. Both branches can answer when the old row was deleted while
  // we inserted: the caller picks ours.
  async reserve(send, table, v) {
    const result = await send({
      ...postgresReserve(table),
      bindings: [
        v.key,
        v.statusCode,
        v.createdAtMs,
        v.expiresAtMs,
        v.reservation,
        v.fingerprint,
        v.key,
      ],
    });
    return (result as { rows: unknown[] }).rows;
  },
  ...fenced(pq, true),
  /** SKIP LOCKED: a purge never waits behind (or blocks) a request working on a row. */
  purgeBatch: (table, nowMs, limit) => ({
    sql: `DELETE FROM ${pq(table)} WHERE storage_key IN (
  SELECT storage_key FROM ${pq(table)} WHERE expires_at_ms <= ? LIMIT ? FOR UPDATE SKIP LOCKED
)`,
    bindings: [nowMs, limit],
  }),
  changedRows: (result) => (result as { rowCount: number | null }).rowCount ?? 0,
  rowsOf: (result) => (result as { rows: unknown[] }).rows,
  retryable: () => false,
};

const mq = (table: string) => quoteParts(table, '`');
/** MySQL's answers to adding a column that is there, or dropping one that is not. */
const ER_DUP_FIELDNAME = 1060;
const ER_CANT_DROP_FIELD_OR_KEY = 1091;
/** InnoDB picks a victim when concurrent inserts on one key deadlock. */
const ER_LOCK_DEADLOCK = 1213;
const ER_LOCK_WAIT_TIMEOUT = 1205;
const ER_DUP_ENTRY = 1062;

const mysqlReserve = perTable(
  (table) =>
    `INSERT INTO ${mq(table)} (storage_key, ${COLUMNS}) VALUES (?, ?, NULL, '', ?, ?, ?, ?, NULL)`,
);
/**
 * MariaDB 10.5+: the no-op ON DUPLICATE KEY UPDATE makes the INSERT answer the row holding the
 * key, ours or the one already there, so a replay is read by the same statement: one round trip.
 */
const mariadbReserve = perTable(
  (table) => `${mysqlReserve(table)}
  ON DUPLICATE KEY UPDATE storage_key = storage_key
  RETURNING ${COLUMNS}`,
);

/** `INSERT ... RETURNING` came with MariaDB 10.5; MySQL has none. */
export function answersInsertReturning(version: string): boolean {
  const match = /^(\d+)\.(\d+)\.\d+.*mariadb/i.exec(version);
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 10 || (major === 10 && minor >= 5);
}

export const mysqlKeyTable: KeyTableStatements = {
  /**
   * utf8mb4_bin: the storage key compares byte for byte (the default collation would fold case).
   * LONGBLOB: BLOB stops at 64 KB. Times are epoch milliseconds so no session time zone (or
   * driver `timezone` setting of the pool) can shift them.
   */
  createTable: (table) => [
    `CREATE TABLE IF NOT EXISTS ${mq(table)} (
  storage_key varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  status_code smallint NOT NULL,
  body longblob NULL,
  content_type text NOT NULL,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL,
  reservation varchar(64) NOT NULL,
  fingerprint text NULL,
  response_headers text NULL,
  PRIMARY KEY (storage_key),
  KEY expires_at_ms_idx (expires_at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
  dropTable: (table) => `DROP TABLE IF EXISTS ${mq(table)}`,
  // MySQL 8 has no ADD COLUMN IF NOT EXISTS: a column already there fails with ER_DUP_FIELDNAME,
  // one already gone with ER_CANT_DROP_FIELD_OR_KEY, and either means nothing is left to do.
  addColumns: (table) =>
    KEY_TABLE_ADDED_COLUMNS.map((c) => `ALTER TABLE ${mq(table)} ADD COLUMN ${c} text NULL`),
  dropAddedColumns: (table) =>
    KEY_TABLE_ADDED_COLUMNS.map((c) => `ALTER TABLE ${mq(table)} DROP COLUMN ${c}`),
  nothingToChange: (error) =>
    errnoOf(error) === ER_DUP_FIELDNAME || errnoOf(error) === ER_CANT_DROP_FIELD_OR_KEY,
  probeColumns: (table) =>
    `SELECT ${KEY_TABLE_ADDED_COLUMNS.join(', ')} FROM ${mq(table)} WHERE 1 = 0`,
  /**
   * A plain INSERT (no ON DUPLICATE KEY UPDATE) on the primary key: when it succeeds the row is
   * ours, so a new key costs one round trip and no read. The loser of a race learns of the
   * winner from the primary key's error:
   *   A: INSERT -> inserts A's placeholder, holding the key's index record lock: A's, no read
   *   B: INSERT -> waits on that lock, then fails with ER_DUP_ENTRY; SELECT reads A's token
   */
  async reserve(send, table, v) {
    try {
      await send({
        sql: mysqlReserve(table),
        bindings: [v.key, v.statusCode, v.createdAtMs, v.expiresAtMs, v.reservation, v.fingerprint],
      });
      return 'reserved';
    } catch (error) {
      if (errnoOf(error) !== ER_DUP_ENTRY) throw error;
      return undefined;
    }
  },
  async forServer(send) {
    const result = await send({ sql: 'SELECT VERSION() AS version', bindings: [] });
    const [row] = (result as [{ version: string }[]])[0];
    return row && answersInsertReturning(row.version) ? mariadbKeyTable : mysqlKeyTable;
  },
  ...fenced(mq, false),
  /** Single-table DELETE ... LIMIT keeps each purge statement short. */
  purgeBatch: (table, nowMs, limit) => ({
    sql: `DELETE FROM ${mq(table)} WHERE expires_at_ms <= ? LIMIT ?`,
    bindings: [nowMs, limit],
  }),
  changedRows: (result) => (result as [{ affectedRows: number }])[0].affectedRows,
  rowsOf: (result) => (result as [unknown[]])[0],
  retryable: (error) =>
    errnoOf(error) === ER_LOCK_DEADLOCK || errnoOf(error) === ER_LOCK_WAIT_TIMEOUT,
};

const mariadbKeyTable: KeyTableStatements = {
  ...mysqlKeyTable,
  async reserve(send, table, v) {
    const result = await send({
      sql: mariadbReserve(table),
      bindings: [v.key, v.statusCode, v.createdAtMs, v.expiresAtMs, v.reservation, v.fingerprint],
    });
    return (result as [unknown[]])[0];
  },
};
