// The PostgreSQL and MySQL idempotency store on the app's own Knex instance: the key table's
// statements of the database's dialect (sql/dialects/key-table.ts) sent raw through Knex, one
// round trip per operation, so the keys share the app's pool, its timeouts and its query
// instrumentation.
import type { Knex } from 'knex';
import {
  dialectFor,
  isDatabaseError,
  type BoundSql,
  type KeyTableStatements,
} from '../../sql/index.js';
import { IN_FLIGHT_STATUS, type StoreTimings } from '../store.js';
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

/** The database family of `knex`, refusing SQLite, which has no key table. */
export function keyTableFamily(knex: Knex): 'postgres' | 'mysql' {
  const { name, keyTable } = dialectFor(knex);
  if (!keyTable) {
    throw new IdempotencyStoreError(
      IdempotencyStoreErrorCode.invalidSettings,
      'knex',
      'the idempotency key table exists for PostgreSQL and MySQL/MariaDB only; on SQLite use the memory store',
    );
  }
  return name as 'postgres' | 'mysql';
}

export class KnexIdempotencyStore extends RelationalIdempotencyStore {
  private keyTable: KeyTableStatements;
  private readonly table: string;

  constructor(
    private readonly knex: Knex,
    settings: KnexStoreSettings,
    timings: StoreTimings,
  ) {
    const family = keyTableFamily(knex);
    const resolved = resolveRelationalSettings(family, settings);
    super(family, timings, resolved);
    this.keyTable = dialectFor(knex).keyTable!;
    this.table = resolved.tableName;
  }

  /**
   * Sends one statement through Knex: its pool, its acquire and statement timeouts. A statement
   * with a name is prepared under it (PostgreSQL), so each connection parses and plans it once.
   * A deadlock victim (MySQL) is sent again: the statement was rolled back and is safe to repeat.
   */
  private readonly raw = async ({ sql, bindings, name }: BoundSql): Promise<unknown> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const query = this.knex.raw(sql, bindings as Knex.RawBinding[]);
        return await (name === undefined ? query : query.options({ name }));
      } catch (error) {
        if (this.keyTable.retryable(error) && attempt < 5) continue;
        throw error;
      }
    }
  };

  /**
   * The races are drawn at the dialects' `reserve` (sql/dialects/key-table.ts): the statement
   * answers the rows holding the key, or that the key is ours, or that it must be read.
   */
  protected async insertIfAbsent(key: string, p: NewRecord): Promise<StoredRecord | undefined> {
    const reserved = await this.keyTable.reserve(this.raw, this.table, { key, ...p });
    if (reserved === 'reserved') return p;
    // Both can answer when the old row was deleted while we inserted: ours wins.
    const rows = (reserved ??
      this.keyTable.rowsOf(await this.raw(this.keyTable.select(this.table, key)))) as KeyTableRow[];
    // The key is taken (a retry, a concurrent request, or an expired or completed record): what
    // holds it. The base store decides from it, and takes an expired record over with the
    // fenced `reclaim`; a record deleted since answers undefined and the claim loop asks again.
    const records = rows.map(rowToRecord);
    return records.find((row) => row.reservation === p.reservation) ?? records[0];
  }

  protected async takeOverExpired(
    key: string,
    expired: StoredRecord,
    p: NewRecord,
  ): Promise<boolean> {
    const statement = this.keyTable.reclaim(this.table, { key, ...p }, expired.reservation);
    return this.keyTable.changedRows(await this.raw(statement)) === 1;
  }

  protected async completeIfOwned(
    key: string,
    reservation: string,
    row: NewRecord,
  ): Promise<boolean> {
    const { statusCode, body, contentType, createdAtMs, expiresAtMs } = row;
    const statement = this.keyTable.complete(this.table, {
      key,
      reservation,
      inFlightStatus: IN_FLIGHT_STATUS,
      statusCode,
      body,
      contentType,
      createdAtMs,
      expiresAtMs,
      headers: headersText(row.headers),
    });
    return this.keyTable.changedRows(await this.raw(statement)) === 1;
  }

  protected async deleteIfOwned(key: string, reservation: string): Promise<void> {
    await this.raw(this.keyTable.release(this.table, key, reservation, IN_FLIGHT_STATUS));
  }

  protected async purgeBatch(nowMs: number, limit: number): Promise<number> {
    return this.keyTable.changedRows(
      await this.raw(this.keyTable.purgeBatch(this.table, nowMs, limit)),
    );
  }

  /** Picks the statements of the server behind the Knex instance, then starts as every store. */
  override async start(): Promise<void> {
    try {
      this.keyTable = (await this.keyTable.forServer?.(this.raw)) ?? this.keyTable;
    } catch {
      // A database down at start keeps the family's statements, which every server answers;
      // the outage shows on requests.
    }
    await super.start();
  }

  protected async lacksAddedColumns(): Promise<boolean> {
    try {
      await this.raw({ sql: this.keyTable.probeColumns(this.table), bindings: [] });
      return false;
    } catch (error) {
      // A table from an older release. A missing table (a database not migrated yet) or a
      // database that is down shows on requests instead, so the app still starts and reports it.
      return isDatabaseError('unknownColumn', error);
    }
  }
}
