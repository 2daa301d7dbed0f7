// The PostgreSQL idempotency store on the `pg` driver: one statement per operation, each on a
// pooled connection checked out and returned within the operation timeout.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { IN_FLIGHT_STATUS, type StoreTimings } from '../store.js';
import { postgresStatements, type PostgresStatements } from './postgres-sql.js';
import { headersText, type NewRecord, type StoredRecord } from './record.js';
import { RelationalIdempotencyStore } from './relational-store.js';
import { rowToRecord, type KeyTableRow } from './table-row.js';
import { resolveRelationalSettings, type RelationalStoreSettings } from './store-settings.js';
import { isStoreTimeout, withTimeout } from './store-timeout.js';

/** A connection string, or a `pg` pool the application already has (the store never ends it). */
export type PostgresConnection = string | pg.Pool;

/** Opens the pool the store owns when given a URL, with the store's timeouts built in. */
export function createPostgresPool(
  url: string,
  settings: { poolSize: number; connectTimeoutMs: number },
): pg.Pool {
  // No driver query timeout: the store's own operation timeout fires and destroys the connection.
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeoutMs,
  });
  // An idle client losing its server emits on the pool; without a listener that kills the process.
  pool.on('error', () => undefined);
  return pool;
}

export class PostgresIdempotencyStore extends RelationalIdempotencyStore {
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly sql: PostgresStatements;
  /** Prepared-statement names, unique per table so two stores on one pool never clash. */
  private readonly names: Record<'insertOrRead' | 'reclaim' | 'complete' | 'release', string>;

  constructor(
    connection: PostgresConnection,
    settings: RelationalStoreSettings,
    timings: StoreTimings,
  ) {
    const resolved = resolveRelationalSettings('postgres', settings);
    super('postgres', timings, resolved);
    this.ownsPool = typeof connection === 'string';
    this.pool =
      typeof connection === 'string' ? createPostgresPool(connection, resolved) : connection;
    this.sql = postgresStatements(resolved.tableName);
    const tag = createHash('sha256').update(resolved.tableName).digest('hex').slice(0, 12);
    this.names = {
      insertOrRead: `slicekit_idem_reserve_${tag}`,
      reclaim: `slicekit_idem_reclaim_${tag}`,
      complete: `slicekit_idem_complete_${tag}`,
      release: `slicekit_idem_release_${tag}`,
    };
  }

  /**
   * Runs one statement within the operation timeout. A connection whose statement timed out or
   * broke is destroyed, not returned: it may still carry the unanswered statement.
   */
  private async query<R extends pg.QueryResultRow>(
    what: string,
    config: pg.QueryConfig,
  ): Promise<pg.QueryResult<R>> {
    const limit = this.settings.operationTimeoutMs;
    const deadline = Date.now() + limit;
    const client = await withTimeout(
      this.pool.connect(),
      limit,
      'postgres',
      `connecting to ${what}`,
      (late) => late.release(),
    );
    let broken: Error | undefined;
    // A checked-out client has no pool listener: its connection dying must not crash the process.
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      return await withTimeout(
        client.query<R>(config),
        Math.max(1, deadline - Date.now()),
        'postgres',
        what,
      );
    } catch (error) {
      if (isStoreTimeout(error) || !(error instanceof pg.DatabaseError)) broken = error as Error;
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /**
   * `INSERT ... ON CONFLICT DO NOTHING` and a read of the key, in one statement. Callers A and B:
   *   A: INSERT -> inserts A's placeholder; RETURNING answers it
   *   B, after A committed: INSERT does nothing; the SELECT answers A's row
   *   B, during A's insert: waits for A's commit, inserts nothing; its snapshot predates A's row,
   *      so the SELECT sees none -> undefined, and the base asks again
   * The primary key lets exactly one insert through.
   */
  protected async insertIfAbsent(key: string, p: NewRecord): Promise<StoredRecord | undefined> {
    const result = await this.query<KeyTableRow>('reserve a key', {
      name: this.names.insertOrRead,
      text: this.sql.insertOrRead,
      values: [key, p.statusCode, p.createdAtMs, p.expiresAtMs, p.reservation, p.fingerprint],
    });
    // Both branches can answer when the old row was deleted while we inserted: ours wins.
    const rows = result.rows.map(rowToRecord);
    return rows.find((row) => row.reservation === p.reservation) ?? rows[0];
  }

  /**
   * `UPDATE ... WHERE reservation = <old token> AND expires_at_ms <= now`:
   *   A, B: read the expired row (token t)
   *   A: UPDATE -> the row lock is A's; t still matches: 1 row, A holds the key
   *   B: UPDATE -> waits for A's commit, re-checks the row: token is A's, 0 rows
   */
  protected async takeOverExpired(
    key: string,
    expired: StoredRecord,
    p: NewRecord,
  ): Promise<boolean> {
    const result = await this.query('reclaim an expired key', {
      name: this.names.reclaim,
      text: this.sql.reclaim,
      values: [
        key,
        expired.reservation,
        p.statusCode,
        p.createdAtMs,
        p.expiresAtMs,
        p.reservation,
        p.fingerprint,
      ],
    });
    return result.rowCount === 1;
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
    const result = await this.query('store a response', {
      name: this.names.complete,
      text: this.sql.complete,
      values: [
        key,
        reservation,
        row.statusCode,
        row.body,
        row.contentType,
        row.createdAtMs,
        row.expiresAtMs,
        IN_FLIGHT_STATUS,
        headersText(row.headers),
      ],
    });
    return result.rowCount === 1;
  }

  /**
   * `DELETE ... WHERE reservation = <our token> AND status_code = 102`:
   *   A reserves (token a), times out; B takes the row over (token b)
   *   A's handler fails: DELETE -> no row carries a: B's reservation stays
   */
  protected async deleteIfOwned(key: string, reservation: string): Promise<void> {
    await this.query('release a reservation', {
      name: this.names.release,
      text: this.sql.release,
      values: [key, reservation, IN_FLIGHT_STATUS],
    });
  }

  protected async purgeBatch(nowMs: number, limit: number): Promise<number> {
    const result = await this.query('purge expired keys', {
      text: this.sql.purgeBatch,
      values: [nowMs, limit],
    });
    return result.rowCount ?? 0;
  }

  protected async createTable(): Promise<void> {
    for (const statement of [...this.sql.createTable, ...this.sql.addColumns]) {
      try {
        await this.query('create the key table', { text: statement });
      } catch (error) {
        // Two instances starting together can race on IF NOT EXISTS: a duplicate row of pg_type
        // (23505), type (42710), relation (42P07) or column (42701).
        const code = (error as { code?: string }).code;
        if (!['23505', '42710', '42P07', '42701'].includes(code ?? '')) throw error;
      }
    }
  }

  protected async lacksAddedColumns(): Promise<boolean> {
    try {
      await this.query('check the key table', { text: this.sql.probeColumns });
      return false;
    } catch (error) {
      // 42703 undefined_column: a table from an older release. Anything else (no table yet, no
      // server) shows on the first request, as it always has.
      return (error as { code?: string }).code === '42703';
    }
  }

  protected async closeConnections(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
