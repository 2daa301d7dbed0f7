// The PostgreSQL statements of the idempotency store, as text: shared by the store, its
// start-up table creation and the exported Knex migration, so the three never drift apart.

function quote(identifier: string): string {
  return identifier
    .split('.')
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join('.');
}

/** Index names are unqualified in PostgreSQL: the index lives in its table's schema. */
function indexName(tableName: string): string {
  const table = tableName.split('.').pop() ?? tableName;
  return `"${`${table}_expires_at_ms_idx`.slice(0, 63)}"`;
}

import { ADDED_COLUMNS } from './table-columns.js';

const COLUMNS =
  'status_code, body, content_type, created_at_ms, expires_at_ms, reservation, fingerprint, response_headers';

/** Every statement the PostgreSQL store sends, for one table. */
export function postgresStatements(tableName: string) {
  const t = quote(tableName);
  return {
    /**
     * The storage key is ASCII (prefix + hex digest) compared byte for byte: collation "C".
     * Times are epoch milliseconds so no session time zone can shift them.
     */
    createTable: [
      `CREATE TABLE IF NOT EXISTS ${t} (
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
      `CREATE INDEX IF NOT EXISTS ${indexName(tableName)} ON ${t} (expires_at_ms)`,
    ],
    dropTable: `DROP TABLE IF EXISTS ${t}`,
    /**
     * Brings a table made by an older release up to date. IF NOT EXISTS, never an error to catch:
     * a failed statement would abort the transaction a Knex migration runs in.
     */
    addColumns: ADDED_COLUMNS.map(
      (column) => `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS ${column} text NULL`,
    ),
    dropAddedColumns: ADDED_COLUMNS.map(
      (column) => `ALTER TABLE ${t} DROP COLUMN IF EXISTS ${column}`,
    ),
    /** Fails with undefined_column (42703) on a table an upgrade has not reached. */
    probeColumns: `SELECT ${ADDED_COLUMNS.join(', ')} FROM ${t} WHERE false`,
    /**
     * Reserve or read, one statement: the race it closes is drawn at
     * `PostgresIdempotencyStore.insertIfAbsent`, like those of the statements below.
     */
    insertOrRead: `WITH inserted AS (
  INSERT INTO ${t} (storage_key, ${COLUMNS})
  VALUES ($1, $2, NULL, '', $3, $4, $5, $6, NULL)
  ON CONFLICT (storage_key) DO NOTHING
  RETURNING ${COLUMNS}
)
SELECT ${COLUMNS} FROM inserted
UNION ALL
SELECT ${COLUMNS} FROM ${t} WHERE storage_key = $1`,
    /** Take over an expired row only if nobody did since we read it (same old token). */
    reclaim: `UPDATE ${t}
SET status_code = $3, body = NULL, content_type = '', created_at_ms = $4, expires_at_ms = $5, reservation = $6,
  fingerprint = $7, response_headers = NULL
WHERE storage_key = $1 AND reservation = $2 AND expires_at_ms <= $4`,
    /** Fenced completion: only the holder of the current in-flight reservation writes. */
    complete: `UPDATE ${t}
SET status_code = $3, body = $4, content_type = $5, created_at_ms = $6, expires_at_ms = $7,
  response_headers = $9
WHERE storage_key = $1 AND reservation = $2 AND status_code = $8`,
    release: `DELETE FROM ${t} WHERE storage_key = $1 AND reservation = $2 AND status_code = $3`,
    /** SKIP LOCKED: a purge never waits behind (or blocks) a request working on a row. */
    purgeBatch: `DELETE FROM ${t} WHERE storage_key IN (
  SELECT storage_key FROM ${t} WHERE expires_at_ms <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED
)`,
  };
}

export type PostgresStatements = ReturnType<typeof postgresStatements>;
