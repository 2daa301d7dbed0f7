// The MySQL/MariaDB idempotency store on `mysql2`: one round trip per operation, each on a pooled
// connection checked out and returned within the operation timeout.
import type { Pool as CallbackPool } from 'mysql2';
import mysql from 'mysql2/promise';
import { IN_FLIGHT_STATUS, type StoreTimings } from '../store.js';
import { mysqlStatements, type MysqlStatements } from './mysql-sql.js';
import { headersText, type NewRecord, type StoredRecord } from './record.js';
import { RelationalIdempotencyStore } from './relational-store.js';
import { rowToRecord, type KeyTableRow } from './table-row.js';
import { resolveRelationalSettings, type RelationalStoreSettings } from './store-settings.js';
import { isStoreTimeout, withTimeout } from './store-timeout.js';

/**
 * A connection string, or a pool the application already has (never ended): a `mysql2/promise`
 * pool, or a callback-style `mysql2` pool, which the store reaches through its `promise()` view.
 */
export type MySqlConnection = string | mysql.Pool | CallbackPool;

type RowShape = KeyTableRow & mysql.RowDataPacket;

/** InnoDB picks a victim when concurrent inserts on one key deadlock; the statement is retried. */
const ER_LOCK_DEADLOCK = 1213;
const ER_LOCK_WAIT_TIMEOUT = 1205;
const ER_BAD_FIELD_ERROR = 1054;
const ER_DUP_FIELDNAME = 1060;

/**
 * Opens the pool the store owns when given a URL. `multipleStatements` lets the reserve send its
 * INSERT and SELECT in one packet: one round trip. Every value still goes through placeholders.
 */
export function createMySqlPool(
  url: string,
  settings: { poolSize: number; connectTimeoutMs: number },
): mysql.Pool {
  return mysql.createPool({
    uri: url,
    connectionLimit: settings.poolSize,
    connectTimeout: settings.connectTimeoutMs,
    multipleStatements: true,
    charset: 'utf8mb4',
  });
}

/** True when the pool's connections accept several statements per query (read defensively). */
function allowsMultipleStatements(pool: mysql.Pool): boolean {
  const core = (
    pool as unknown as {
      pool?: { config?: { connectionConfig?: { multipleStatements?: unknown } } };
    }
  ).pool;
  return core?.config?.connectionConfig?.multipleStatements === true;
}

/**
 * The promise API of a pool: a callback-style pool answers callbacks, not promises, so the store
 * talks to its `promise()` view, which shares the same connections.
 */
function promisePoolOf(pool: mysql.Pool | CallbackPool): mysql.Pool {
  const callbackPool = pool as Partial<CallbackPool>;
  return typeof callbackPool.promise === 'function'
    ? callbackPool.promise.call(pool)
    : (pool as mysql.Pool);
}

export class MySqlIdempotencyStore extends RelationalIdempotencyStore {
  private readonly pool: mysql.Pool;
  private readonly ownsPool: boolean;
  private readonly multi: boolean;
  private readonly sql: MysqlStatements;

  constructor(
    connection: MySqlConnection,
    settings: RelationalStoreSettings,
    timings: StoreTimings,
  ) {
    const resolved = resolveRelationalSettings('mysql', settings);
    super('mysql', timings, resolved);
    this.ownsPool = typeof connection === 'string';
    this.pool =
      typeof connection === 'string'
        ? createMySqlPool(connection, resolved)
        : promisePoolOf(connection);
    this.multi = allowsMultipleStatements(this.pool);
    this.sql = mysqlStatements(resolved.tableName);
  }

  /**
   * Runs `work` on one pooled connection within the operation timeout. A connection whose
   * statement timed out or broke is destroyed, not returned: it may still carry that statement.
   * A deadlock victim is retried: the statement was rolled back and is safe to send again.
   */
  private async run<T>(
    what: string,
    work: (connection: mysql.PoolConnection) => Promise<T>,
  ): Promise<T> {
    const limit = this.settings.operationTimeoutMs;
    const deadline = Date.now() + limit;
    const connection = await withTimeout(
      this.pool.getConnection(),
      limit,
      'mysql',
      `connecting to ${what}`,
      (late) => late.release(),
    );
    let broken = false;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await withTimeout(
            work(connection),
            Math.max(1, deadline - Date.now()),
            'mysql',
            what,
          );
        } catch (error) {
          const errno = (error as { errno?: number }).errno;
          if ((errno === ER_LOCK_DEADLOCK || errno === ER_LOCK_WAIT_TIMEOUT) && attempt < 5)
            continue;
          throw error;
        }
      }
    } catch (error) {
      broken = isStoreTimeout(error) || (error as { fatal?: boolean }).fatal === true;
      throw error;
    } finally {
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  /**
   * `INSERT ... ON DUPLICATE KEY UPDATE` (a no-op) then a `SELECT`, relying on the primary key:
   *   A: INSERT -> inserts A's placeholder (A's token), holding the key's index record lock
   *   B: INSERT -> waits on that lock, then changes nothing
   *   A, B: SELECT -> both read A's token; only A finds its own, so only A runs the handler
   * MySQL has no INSERT ... RETURNING, so the read is a second statement: sent in the same packet
   * when the connection allows multiple statements, else as a second round trip.
   */
  protected async insertIfAbsent(key: string, p: NewRecord): Promise<StoredRecord | undefined> {
    const insertValues = [
      key,
      p.statusCode,
      p.createdAtMs,
      p.expiresAtMs,
      p.reservation,
      p.fingerprint,
    ];
    const rows = await this.run('reserve a key', async (connection) => {
      if (this.multi) {
        const [results] = await connection.query(this.sql.reserveAndRead, [...insertValues, key]);
        // One result per statement: the INSERT's header, then the SELECT's rows.
        return (results as unknown as [mysql.ResultSetHeader, RowShape[]])[1];
      }
      await connection.execute(this.sql.insert, insertValues);
      const [selected] = await connection.execute<RowShape[]>(this.sql.select, [key]);
      return selected;
    });
    const row = rows[0];
    return row ? rowToRecord(row) : undefined;
  }

  /**
   * `UPDATE ... WHERE reservation = <old token> AND expires_at_ms <= now`:
   *   A, B: read the expired row (token t)
   *   A: UPDATE -> locks the row; t still matches: 1 row, A holds the key
   *   B: UPDATE -> waits for A's lock, then reads the row's latest version: A's token, 0 rows
   */
  protected async takeOverExpired(
    key: string,
    expired: StoredRecord,
    p: NewRecord,
  ): Promise<boolean> {
    const [result] = await this.run('reclaim an expired key', (connection) =>
      connection.execute<mysql.ResultSetHeader>(this.sql.reclaim, [
        p.statusCode,
        p.createdAtMs,
        p.expiresAtMs,
        p.reservation,
        p.fingerprint,
        key,
        expired.reservation,
        p.createdAtMs,
      ]),
    );
    return result.affectedRows === 1;
  }

  /**
   * `UPDATE ... WHERE reservation = <our token> AND status_code = 102`:
   *   A reserves (token a), times out; B's UPDATE takes the row over (token b)
   *   A: UPDATE -> no row carries a: 0 rows, B's reservation and result stay
   * The status condition keeps a second completion from rewriting a stored response.
   */
  protected async completeIfOwned(
    key: string,
    reservation: string,
    row: NewRecord,
  ): Promise<boolean> {
    const [result] = await this.run('store a response', (connection) =>
      connection.execute<mysql.ResultSetHeader>(this.sql.complete, [
        row.statusCode,
        row.body,
        row.contentType,
        row.createdAtMs,
        row.expiresAtMs,
        headersText(row.headers),
        key,
        reservation,
        IN_FLIGHT_STATUS,
      ]),
    );
    return result.affectedRows === 1;
  }

  /**
   * `DELETE ... WHERE reservation = <our token> AND status_code = 102`:
   *   A reserves (token a), times out; B takes the row over (token b)
   *   A's handler fails: DELETE -> no row carries a: B's reservation stays
   */
  protected async deleteIfOwned(key: string, reservation: string): Promise<void> {
    await this.run('release a reservation', (connection) =>
      connection.execute(this.sql.release, [key, reservation, IN_FLIGHT_STATUS]),
    );
  }

  protected async purgeBatch(nowMs: number, limit: number): Promise<number> {
    const [result] = await this.run('purge expired keys', (connection) =>
      // query, not execute: LIMIT takes no server-side placeholder on every server version.
      connection.query<mysql.ResultSetHeader>(this.sql.purgeBatch, [nowMs, limit]),
    );
    return result.affectedRows;
  }

  protected async createTable(): Promise<void> {
    for (const statement of this.sql.createTable) {
      await this.run('create the key table', (connection) => connection.query(statement));
    }
    for (const statement of this.sql.addColumns) {
      try {
        await this.run('upgrade the key table', (connection) => connection.query(statement));
      } catch (error) {
        // The column is there already (a new table, or another instance added it first).
        if ((error as { errno?: number }).errno !== ER_DUP_FIELDNAME) throw error;
      }
    }
  }

  protected async lacksAddedColumns(): Promise<boolean> {
    try {
      await this.run('check the key table', (connection) =>
        connection.query(this.sql.probeColumns),
      );
      return false;
    } catch (error) {
      // A table from an older release. Anything else (no table yet, no server) shows on the
      // first request, as it always has.
      return (error as { errno?: number }).errno === ER_BAD_FIELD_ERROR;
    }
  }

  protected async closeConnections(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
