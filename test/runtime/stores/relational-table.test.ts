// The key table of the PostgreSQL and MySQL store: created by the exported Knex migration,
// holding only hashed keys, and emptied of expired rows by the purge.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { conformanceKeyInfo } from '@slicekit/runtime/testing';
import type { StoreTimings } from '@slicekit/runtime/idempotency';
import { createIdempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';
import { KnexIdempotencyStore } from '@slicekit/runtime/internal';
import type { RelationalIdempotencyStore } from '@slicekit/runtime/internal';
import type { RelationalStoreSettings } from '@slicekit/runtime/internal';
import { useDatabase } from '../../support/services.js';

const longTimings = {
  expirationMs: 60_000,
  inFlightReservationTimeoutMs: 30_000,
  cachePrefix: 'idem',
};
const shortTimings = { expirationMs: 300, inFlightReservationTimeoutMs: 300, cachePrefix: 'idem' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rowCount(knex: Knex, table: string): Promise<number> {
  const [row] = await knex(table).count({ n: '*' });
  return Number(row?.n);
}

/** Records how many rows each purge statement of `store` deletes. */
function recordBatches(store: RelationalIdempotencyStore): number[] {
  const batches: number[] = [];
  const target = store as unknown as {
    purgeBatch(nowMs: number, limit: number): Promise<number>;
  };
  const purgeBatch = target.purgeBatch.bind(store);
  target.purgeBatch = async (nowMs, limit) => {
    const deleted = await purgeBatch(nowMs, limit);
    batches.push(deleted);
    return deleted;
  };
  return batches;
}

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`the ${dialect} idempotency key table`, () => {
    const db = useDatabase(dialect);
    const make = (_url: string, settings: RelationalStoreSettings, timings: StoreTimings) =>
      new KnexIdempotencyStore(db.knex, settings, timings);
    /** The table, made by the app's migration. */
    const migrated = (tableName: string) =>
      createIdempotencyKeysMigration({ tableName }).up(db.knex);

    it('is created by the exported Knex migration, and the store works on it', async () => {
      const migration = createIdempotencyKeysMigration({ tableName: 'migrated_keys' });
      await db.knex.migrate.latest({
        migrationSource: {
          getMigrations: async () => ['20250101000000_idempotency_keys'],
          getMigrationName: (name: string) => name,
          getMigration: async () => migration,
        },
      });
      expect(await db.knex.schema.hasTable('migrated_keys')).to.equal(true);
      expect(Object.keys(await db.knex('migrated_keys').columnInfo()).sort()).to.deep.equal([
        'body',
        'content_type',
        'created_at_ms',
        'expires_at_ms',
        'fingerprint',
        'reservation',
        'response_headers',
        'status_code',
        'storage_key',
      ]);
      // The storage key is unique: the index the reservation relies on.
      const row = {
        storage_key: 'idem:unique',
        status_code: 102,
        content_type: '',
        created_at_ms: 1,
        expires_at_ms: 2,
        reservation: 'r',
      };
      await db.knex('migrated_keys').insert(row);
      const duplicate = await db
        .knex('migrated_keys')
        .insert({ ...row, reservation: 's' })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(duplicate, 'a second row with the same storage key').to.be.instanceOf(Error);
      await db.knex('migrated_keys').delete();
      const store = make(db.url, { tableName: 'migrated_keys' }, longTimings);
      try {
        await store.start();
        expect(await store.isKeyProcessed(conformanceKeyInfo('after-migration'))).to.include({
          processed: false,
        });
      } finally {
        await store.close();
      }
      await migration.down(db.knex);
      expect(await db.knex.schema.hasTable('migrated_keys')).to.equal(false);
    });

    it('stores the SHA-256 of the composite key, never the key itself', async () => {
      await migrated('hashed_keys');
      const store = make(db.url, { tableName: 'hashed_keys' }, longTimings);
      const info = conformanceKeyInfo('secret-order-key', { scope: 'user:7' });
      try {
        await store.start();
        await store.isKeyProcessed(info);
      } finally {
        await store.close();
      }
      const rows = await db.knex('hashed_keys').select('storage_key');
      const digest = createHash('sha256')
        .update('user:7:POST:/ORDERS:secret-order-key')
        .digest('hex');
      expect(rows.map((row: { storage_key: string }) => row.storage_key)).to.deep.equal([
        `idem:${digest}`,
      ]);
    });

    it('purges expired rows in bounded batches and keeps live ones', async () => {
      const table = 'purged_keys';
      await migrated(table);
      const shortStore = make(db.url, { tableName: table, purgeBatchSize: 2 }, shortTimings);
      const longStore = make(db.url, { tableName: table, purgeBatchSize: 2 }, longTimings);
      try {
        await shortStore.start();
        await longStore.start();
        for (const key of ['old-1', 'old-2', 'old-3', 'old-4', 'old-5']) {
          await shortStore.isKeyProcessed(conformanceKeyInfo(key));
        }
        const live = conformanceKeyInfo('live');
        const first = await longStore.isKeyProcessed(live);
        await sleep(400);
        const batches = recordBatches(longStore);
        expect(await longStore.purgeExpired()).to.equal(5);
        expect(batches, 'rows deleted per statement').to.deep.equal([2, 2, 1]);
        expect(await rowCount(db.knex, table)).to.equal(1);
        expect(await longStore.isKeyProcessed(live)).to.deep.equal({
          processed: true,
          response: null,
          fingerprint: null,
        });
        expect(first.processed).to.equal(false);
      } finally {
        await shortStore.close();
        await longStore.close();
      }
    });

    it('purges on its own when given an interval', async () => {
      const table = 'interval_keys';
      await migrated(table);
      const store = make(db.url, { tableName: table, purgeIntervalMs: 100 }, shortTimings);
      try {
        await store.start();
        await store.isKeyProcessed(conformanceKeyInfo('soon-gone'));
        expect(await rowCount(db.knex, table)).to.equal(1);
        while ((await rowCount(db.knex, table)) > 0) await sleep(100);
      } finally {
        await store.close();
      }
    });
  });
}
