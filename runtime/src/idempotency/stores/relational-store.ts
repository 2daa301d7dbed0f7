// The shared relational store (not selectable on its own): what PostgreSQL and MySQL add to the
// base store over a table with a unique storage key: the key length limit, the check for a table
// from an older release, and the purge of expired rows. Every decision about a key (new, in flight, completed, expired,
// take over) is the base store's.
import { safeError } from '../../logging/index.js';
import type { StoreTimings } from '../store.js';
import { BaseIdempotencyStore } from './base-store.js';
import { IdempotencyStoreError, IdempotencyStoreErrorCode } from './store-errors.js';
import type { ResolvedRelationalSettings } from './store-settings.js';
import { KEY_TABLE_ADDED_COLUMNS as ADDED_COLUMNS } from '../../sql/index.js';

/** `storage_key` is VARCHAR(255); the digest and its colon take 65 of those characters. */
export const MAX_RELATIONAL_PREFIX_LENGTH = 255 - 65;

export abstract class RelationalIdempotencyStore extends BaseIdempotencyStore {
  private purgeTimer: NodeJS.Timeout | undefined;
  private purging: Promise<number> | undefined;

  protected constructor(
    storeName: string,
    timings: StoreTimings,
    protected readonly settings: ResolvedRelationalSettings,
  ) {
    super(storeName, timings);
    if (timings.cachePrefix.length > MAX_RELATIONAL_PREFIX_LENGTH) {
      throw new IdempotencyStoreError(
        IdempotencyStoreErrorCode.invalidSettings,
        storeName,
        `cachePrefix is ${timings.cachePrefix.length} characters; at most ` +
          `${MAX_RELATIONAL_PREFIX_LENGTH} fit the 255-character storage key`,
      );
    }
  }

  /** Deletes at most `limit` rows expired at `nowMs`; answers how many. */
  protected abstract purgeBatch(nowMs: number, limit: number): Promise<number>;
  /** True when the table exists but lacks a column added since (`ADDED_COLUMNS`). */
  protected abstract lacksAddedColumns(): Promise<boolean>;

  /**
   * Deletes every row expired now, `purgeBatchSize` rows per statement so no statement holds many
   * locks for long. Answers how many rows it deleted. Concurrent calls share one run.
   */
  purgeExpired(): Promise<number> {
    this.purging ??= this.purgeAll().finally(() => {
      this.purging = undefined;
    });
    return this.purging;
  }

  private async purgeAll(): Promise<number> {
    const limit = this.settings.purgeBatchSize;
    let total = 0;
    for (;;) {
      const deleted = await this.purgeBatch(Date.now(), limit);
      total += deleted;
      if (deleted < limit) return total;
      // Let requests waiting for a pooled connection go first between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async start(): Promise<void> {
    if (await this.lacksAddedColumns()) {
      throw new IdempotencyStoreError(
        IdempotencyStoreErrorCode.tableOutdated,
        this.storeName,
        `the table ${this.settings.tableName} lacks the columns ${ADDED_COLUMNS.join(', ')}: ` +
          `add a migration exporting createIdempotencyKeysUpgradeMigration() and run it`,
      );
    }
    if (this.settings.purgeIntervalMs > 0 && !this.purgeTimer) {
      this.purgeTimer = setInterval(() => {
        this.purgeExpired().then(
          (deleted) => {
            if (deleted > 0)
              this.settings.logger?.debug({ deleted }, 'purged expired idempotency keys');
          },
          (error: unknown) =>
            this.settings.logger?.warn(
              { err: safeError(error) },
              'purging expired idempotency keys failed',
            ),
        );
      }, this.settings.purgeIntervalMs);
      // A purge timer alone must not keep the process alive.
      this.purgeTimer.unref();
    }
  }

  async close(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
    // The connections are the app's Knex instance's: it outlives the store.
    await this.purging?.catch(() => undefined);
  }
}
