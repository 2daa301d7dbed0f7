// A key table created by an older release (before the request fingerprint and the replayed
// headers): the exported upgrade
// migration adds what it lacks and keeps its rows, a store refuses to start on it until then, and
// `createTable: true` upgrades it by itself.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { conformanceKeyInfo } from '@slicekit/runtime/testing';
import { storageKey } from '@slicekit/runtime/idempotency';
import {
  createIdempotencyKeysMigration,
  createIdempotencyKeysUpgradeMigration,
  type IdempotencyKeysMigration,
} from '@slicekit/runtime/idempotency/knex';
import { KnexIdempotencyStore } from '@slicekit/runtime/internal';
import type { RelationalIdempotencyStore } from '@slicekit/runtime/internal';
import type { RelationalStoreSettings } from '@slicekit/runtime/internal';
import { useDatabase } from '../../support/services.js';

/** The DDL `createIdempotencyKeysMigration` ran before the fingerprint and headers columns. */
const firstReleaseTable = {
  postgres: (t: string) => [
    `CREATE TABLE "${t}" (
  storage_key varchar(255) COLLATE "C" NOT NULL PRIMARY KEY,
  status_code smallint NOT NULL,
  body bytea NULL,
  content_type text NOT NULL,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL,
  reservation varchar(64) NOT NULL
)`,
    `CREATE INDEX "${t}_expires_at_ms_idx" ON "${t}" (expires_at_ms)`,
  ],
  mysql: (t: string) => [
    `CREATE TABLE \`${t}\` (
  storage_key varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  status_code smallint NOT NULL,
  body longblob NULL,
  content_type text NOT NULL,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL,
  reservation varchar(64) NOT NULL,
  PRIMARY KEY (storage_key),
  KEY expires_at_ms_idx (expires_at_ms)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
};

const timings = { expirationMs: 60_000, inFlightReservationTimeoutMs: 30_000, cachePrefix: 'idem' };

/** Runs `migrations` in order through Knex's migrator, as an app's migrations folder would. */
async function migrate(knex: Knex, migrations: Record<string, IdempotencyKeysMigration>) {
  await knex.migrate.latest({
    migrationSource: {
      getMigrations: async () => Object.keys(migrations),
      getMigrationName: (name: string) => name,
      getMigration: async (name: string) => migrations[name]!,
    },
  });
}

async function columns(knex: Knex, table: string): Promise<string[]> {
  return Object.keys(await knex(table).columnInfo()).sort();
}

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`upgrading the ${dialect} idempotency key table`, () => {
    const db = useDatabase(dialect);
    const make = (table: string, settings: RelationalStoreSettings = {}) =>
      new KnexIdempotencyStore(db.knex, { tableName: table, ...settings }, timings);

    /** An old table holding one completed row, written by a first-release store. */
    async function oldTable(table: string): Promise<RelationalIdempotencyStore> {
      for (const statement of firstReleaseTable[dialect](table)) await db.knex.raw(statement);
      await db.knex(table).insert({
        storage_key: `idem:${'0'.repeat(64)}`,
        status_code: 201,
        body: Buffer.from('{"id":"old"}'),
        content_type: 'application/json',
        created_at_ms: Date.now(),
        expires_at_ms: Date.now() + 60_000,
        reservation: 'old-token',
      });
      return make(table);
    }

    it('refuses to start a store on a table the upgrade has not reached, naming the migration', async () => {
      const store = await oldTable('outdated_keys');
      const error = await store.start().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      await store.close();
      expect(error).to.have.property('code', 'idempotency_store_table_outdated');
      expect(String((error as Error).message))
        .to.match(/fingerprint, response_headers/)
        .and.match(/createIdempotencyKeysUpgradeMigration/);
    });

    it('adds the fingerprint and response_headers columns to a table made by the first-release migration, keeping its rows', async () => {
      const table = 'upgraded_keys';
      await oldTable(table);
      await migrate(db.knex, {
        '20250601000000_idempotency_keys_upgrade': createIdempotencyKeysUpgradeMigration({
          tableName: table,
        }),
      });
      expect(await columns(db.knex, table)).to.include.members(['fingerprint', 'response_headers']);
      const kept = await db.knex(table).select('status_code', 'body', 'fingerprint');
      expect(kept).to.have.length(1);
      expect(Number(kept[0].status_code)).to.equal(201);
      expect(Buffer.from(kept[0].body).toString()).to.equal('{"id":"old"}');
      expect(kept[0].fingerprint).to.equal(null);

      const store = make(table);
      try {
        await store.start();
        const info = conformanceKeyInfo('after-upgrade', { fingerprint: 'f1' });
        const check = await store.isKeyProcessed(info);
        expect(check.processed).to.equal(false);
        expect(await store.isKeyProcessed(info)).to.include({ fingerprint: 'f1' });
        // The row written before the upgrade still replays, with no headers and no fingerprint.
        await db
          .knex(table)
          .where({ reservation: 'old-token' })
          .update({ storage_key: storageKey('idem', conformanceKeyInfo('old')) });
        const old = await store.isKeyProcessed(conformanceKeyInfo('old', { fingerprint: 'x' }));
        expect(old.processed && old.response?.statusCode).to.equal(201);
        expect(old.processed && old.fingerprint).to.equal(null);
        expect(old.processed && [...(old.response?.headers ?? ['missing'])]).to.deep.equal([]);
      } finally {
        await store.close();
      }
    });

    it('is harmless after the current create migration, and down drops only what it added', async () => {
      const table = 'current_keys';
      await migrate(db.knex, {
        '20250101000000_idempotency_keys': createIdempotencyKeysMigration({ tableName: table }),
        '20250601000000_idempotency_keys_upgrade': createIdempotencyKeysUpgradeMigration({
          tableName: table,
        }),
      });
      const upgrade = createIdempotencyKeysUpgradeMigration({ tableName: table });
      await upgrade.up(db.knex);
      expect(await columns(db.knex, table)).to.include.members(['fingerprint', 'response_headers']);
      await upgrade.down(db.knex);
      await upgrade.down(db.knex);
      expect(await columns(db.knex, table)).to.deep.equal([
        'body',
        'content_type',
        'created_at_ms',
        'expires_at_ms',
        'reservation',
        'status_code',
        'storage_key',
      ]);
    });
  });
}
