// The PostgreSQL and MySQL idempotency store on the app's own Knex instance: the statements of
// postgres-sql.ts and mysql-sql.ts sent raw through Knex, one round trip per operation, so the
// keys share the app's pool, its timeouts and its query instrumentation.
import type { Knex } from 'knex';
import { sqlFamily } from '../../sql/dialect.js';
import { IN_FLIGHT_STATUS, type StoreTimings } from '../store.js';
import { mysqlStatements } from './mysql-sql.js';
import { postgresStatements } from './postgres-sql.js';
import { headersText, type NewRecord, type StoredRecord } from './record.js';
import { RelationalIdempotencyStore } from './relational-store.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import { rowToRecord, type KeyTableRow } from './table-row.js';
import { resolveRelationalSettings, type RelationalStoreSettings } from './store-settings.js';

/**
 * Settings of the store on a Knex instance. Connections, pool size and timeouts are the Knex
 * instance's own; the table comes from a migration (`createIdempotencyKeysMigration`), never from
 * the store.
 */
export type KnexStoreSettings = Pick<
  RelationalStoreSettings,
  'tableName' | 'purgeIntervalMs' | 'purgeBatchSize' | 'logger'
>;

/** A statement in Knex's `?` form, and which argument each `?` takes. */
interface Statement {
  readonly sql: string;
  readonly order: readonly number[];
}

/** Turns PostgreSQL's `$n` placeholders (some used twice) into Knex's `?`, one per use. */
function positional(text: string): Statement {
  const order: number[] = [];
  const sql = text.replace(/\$(\d+)/g, (_, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  return { sql, order };
}

/** Statements whose placeholders are `?` already (MySQL): arguments in order. */
function inOrder(sql: string): Statement {
  const count = sql.split('?').length - 1;
  return { sql, order: Array.from({ length: count }, (_, i) => i) };
}

/** InnoDB picks a victim when concurrent inserts on one key deadlock; the statement is retried. */
const ER_LOCK_DEADLOCK = 1213;
const ER_LOCK_WAIT_TIMEOUT = 1205;
const ER_BAD_FIELD_ERROR = 1054;
/** The key is taken: the reserve reads the record that holds it. */
const ER_DUP_ENTRY = 1062;

/** The database family of `knex`, refusing SQLite, which has no key table. */
export function keyTableFamily(knex: Knex): 'postgres' | 'mysql' {
  const family = sqlFamily(knex);
  if (family === 'sqlite') {
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.invalidSettings,
      'knex',
      'the idempotency key table exists for PostgreSQL and MySQL/MariaDB only; on SQLite use the memory store',
    );
  }
  return family;
}

export class KnexIdempotencyStore extends RelationalIdempotencyStore {
  private readonly family: 'postgres' | 'mysql';
  private readonly sql: Record<
    'reserve' | 'reclaim' | 'complete' | 'release' | 'purge' | 'probe',
    Statement
  > & { select?: Statement };

  constructor(
    private readonly knex: Knex,
    settings: KnexStoreSettings,
    timings: StoreTimings,
  ) {
    const family = keyTableFamily(knex);
    const resolved = resolveRelationalSettings(family, settings);
    super(family, timings, resolved);
    this.family = family;
    if (family === 'postgres') {
      const s = postgresStatements(resolved.tableName);
      this.sql = {
        reserve: positional(s.insertOrRead),
        reclaim: positional(s.reclaim),
        complete: positional(s.complete),
        release: positional(s.release),
        purge: positional(s.purgeBatch),
        probe: positional(s.probeColumns),
      };
    } else {
      const s = mysqlStatements(resolved.tableName);
      this.sql = {
        reserve: inOrder(s.insertNew),
        select: inOrder(s.select),
        reclaim: inOrder(s.reclaim),
        complete: inOrder(s.complete),
        release: inOrder(s.release),
        purge: inOrder(s.purgeBatch),
        probe: inOrder(s.probeColumns),
      };
    }
  }

  /**
   * Sends one statement through Knex: its pool, its acquire and statement timeouts. A MySQL
   * deadlock victim is sent again: the statement was rolled back and is safe to repeat.
   */
  private async raw(statement: Statement, args: readonly unknown[]): Promise<unknown> {
    const bindings = statement.order.map((i) => args[i]) as Knex.RawBinding[];
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.knex.raw(statement.sql, bindings);
      } catch (error) {
        const errno = (error as { errno?: number }).errno;
        const deadlock = errno === ER_LOCK_DEADLOCK || errno === ER_LOCK_WAIT_TIMEOUT;
        if (this.family === 'mysql' && deadlock && attempt < 5) continue;
        throw error;
      }
    }
  }

  /** Rows changed: pg's `rowCount`, or mysql2's `affectedRows` (first of `[header, fields]`). */
  private changed(result: unknown): number {
    if (this.family === 'postgres') return (result as { rowCount: number | null }).rowCount ?? 0;
    return (result as [{ affectedRows: number }])[0].affectedRows;
  }

  /**
   * The races are drawn at the PostgreSQL and MySQL stores' `insertIfAbsent`. On MySQL the
   * INSERT here is plain, so the loser learns of the winner from the primary key's error:
   *   A: INSERT -> inserts A's placeholder, holding the key's index record lock: A's, no read
   *   B: INSERT -> waits on that lock, then fails with ER_DUP_ENTRY; SELECT reads A's token
   */
  protected async insertIfAbsent(key: string, p: NewRecord): Promise<StoredRecord | undefined> {
    const values = [key, p.statusCode, p.createdAtMs, p.expiresAtMs, p.reservation, p.fingerprint];
    if (this.family === 'postgres') {
      const result = (await this.raw(this.sql.reserve, values)) as { rows: KeyTableRow[] };
      // Both branches can answer when the old row was deleted while we inserted: ours wins.
      const rows = result.rows.map(rowToRecord);
      return rows.find((row) => row.reservation === p.reservation) ?? rows[0];
    }
    try {
      // A plain INSERT (no ON DUPLICATE KEY UPDATE) on the primary key: when it succeeds the row
      // is ours and holds exactly `p`, so a new key costs one round trip and no read.
      await this.raw(this.sql.reserve, values);
      return p;
    } catch (error) {
      if ((error as { errno?: number }).errno !== ER_DUP_ENTRY) throw error;
    }
    // The key is taken (a retry, a concurrent request, or an expired or completed record): read
    // what holds it. The base store decides from it, and takes an expired record over with the
    // fenced `reclaim`; a record deleted since answers undefined and the claim loop asks again.
    const [rows] = (await this.raw(this.sql.select!, [key])) as [KeyTableRow[]];
    return rows[0] ? rowToRecord(rows[0]) : undefined;
  }

  protected async takeOverExpired(
    key: string,
    expired: StoredRecord,
    p: NewRecord,
  ): Promise<boolean> {
    const { statusCode, createdAtMs, expiresAtMs, reservation, fingerprint } = p;
    const args: unknown[] =
      this.family === 'postgres'
        ? [key, expired.reservation, statusCode, createdAtMs, expiresAtMs, reservation, fingerprint]
        : [statusCode, createdAtMs, expiresAtMs, reservation, fingerprint, key].concat(
            expired.reservation,
            createdAtMs,
          );
    return this.changed(await this.raw(this.sql.reclaim, args)) === 1;
  }

  protected async completeIfOwned(
    key: string,
    reservation: string,
    row: NewRecord,
  ): Promise<boolean> {
    const headers = headersText(row.headers);
    const { statusCode, body, contentType, createdAtMs, expiresAtMs } = row;
    // The same values in each dialect's placeholder order (see postgres-sql.ts, mysql-sql.ts).
    const args: unknown[] =
      this.family === 'postgres'
        ? [key, reservation, statusCode, body, contentType, createdAtMs, expiresAtMs]
        : [statusCode, body, contentType, createdAtMs, expiresAtMs, headers, key, reservation];
    args.push(IN_FLIGHT_STATUS);
    if (this.family === 'postgres') args.push(headers);
    return this.changed(await this.raw(this.sql.complete, args)) === 1;
  }

  protected async deleteIfOwned(key: string, reservation: string): Promise<void> {
    await this.raw(this.sql.release, [key, reservation, IN_FLIGHT_STATUS]);
  }

  protected async purgeBatch(nowMs: number, limit: number): Promise<number> {
    return this.changed(await this.raw(this.sql.purge, [nowMs, limit]));
  }

  protected async lacksAddedColumns(): Promise<boolean> {
    try {
      await this.raw(this.sql.probe, []);
      return false;
    } catch (error) {
      // A table from an older release. A missing table (a database not migrated yet) or a
      // database that is down shows on requests instead, so the app still starts and reports it.
      const { code, errno } = error as { code?: string; errno?: number };
      return code === '42703' || errno === ER_BAD_FIELD_ERROR;
    }
  }
}
