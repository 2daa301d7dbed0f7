// The MySQL/MariaDB statements of the idempotency store, as text: shared by the store, its
// start-up table creation and the exported Knex migration, so the three never drift apart.

function quote(identifier: string): string {
  return identifier
    .split('.')
    .map((part) => `\`${part.replaceAll('`', '``')}\``)
    .join('.');
}

import { ADDED_COLUMNS } from './table-columns.js';

const COLUMNS =
  'status_code, body, content_type, created_at_ms, expires_at_ms, reservation, fingerprint, response_headers';

/** Every statement the MySQL store sends, for one table. */
export function mysqlStatements(tableName: string) {
  const t = quote(tableName);
  const select = `SELECT ${COLUMNS} FROM ${t} WHERE storage_key = ?`;
  const insertNew = `INSERT INTO ${t} (storage_key, ${COLUMNS}) VALUES (?, ?, NULL, '', ?, ?, ?, ?, NULL)`;
  const insert = `${insertNew}
ON DUPLICATE KEY UPDATE storage_key = storage_key`;
  return {
    /**
     * utf8mb4_bin: the storage key compares byte for byte (the default collation would fold case).
     * LONGBLOB: BLOB stops at 64 KB. Times are epoch milliseconds so no session time zone (or
     * driver `timezone` setting of a pool the app passed in) can shift them.
     */
    createTable: [
      `CREATE TABLE IF NOT EXISTS ${t} (
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
    dropTable: `DROP TABLE IF EXISTS ${t}`,
    /**
     * Brings a table made by an older release up to date. MySQL 8 has no ADD COLUMN IF NOT
     * EXISTS: a column already there fails with ER_DUP_FIELDNAME, which the caller ignores.
     */
    addColumns: ADDED_COLUMNS.map((column) => `ALTER TABLE ${t} ADD COLUMN ${column} text NULL`),
    /** A column already gone fails with ER_CANT_DROP_FIELD_OR_KEY, which the caller ignores. */
    dropAddedColumns: ADDED_COLUMNS.map((column) => `ALTER TABLE ${t} DROP COLUMN ${column}`),
    /** Fails with ER_BAD_FIELD_ERROR (1054) on a table an upgrade has not reached. */
    probeColumns: `SELECT ${ADDED_COLUMNS.join(', ')} FROM ${t} WHERE 1 = 0`,
    /**
     * Reserve, relying on the primary key, then read: the race it closes is drawn at
     * `MySqlIdempotencyStore.insertIfAbsent`, like those of the statements below. Sent in one
     * packet (`reserveAndRead`) when the connection allows multiple statements (the store's own
     * pool; the store on the app's Knex uses `insertNew`).
     */
    insert,
    select,
    /**
     * Reserve without a read (the store on the app's Knex): a new key is ours from the INSERT
     * alone; an existing one fails with ER_DUP_ENTRY and is read with `select`.
     */
    insertNew,
    reserveAndRead: `${insert};\n${select}`,
    /** Take over an expired row only if nobody did since we read it (same old token). */
    reclaim: `UPDATE ${t}
SET status_code = ?, body = NULL, content_type = '', created_at_ms = ?, expires_at_ms = ?, reservation = ?,
  fingerprint = ?, response_headers = NULL
WHERE storage_key = ? AND reservation = ? AND expires_at_ms <= ?`,
    /** Fenced completion: only the holder of the current in-flight reservation writes. */
    complete: `UPDATE ${t}
SET status_code = ?, body = ?, content_type = ?, created_at_ms = ?, expires_at_ms = ?,
  response_headers = ?
WHERE storage_key = ? AND reservation = ? AND status_code = ?`,
    release: `DELETE FROM ${t} WHERE storage_key = ? AND reservation = ? AND status_code = ?`,
    /** Single-table DELETE ... LIMIT keeps each purge statement short. */
    purgeBatch: `DELETE FROM ${t} WHERE expires_at_ms <= ? LIMIT ?`,
  };
}

export type MysqlStatements = ReturnType<typeof mysqlStatements>;
