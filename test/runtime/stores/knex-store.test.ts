// The store on the app's Knex instance: the table is the app's migration's, never the store's;
// the Knex instance stays the app's; SQLite has no key table and refuses the store.
import { expect } from 'chai';
import express from 'express';
import { conformanceKeyInfo } from '@slicekit/runtime/testing';
import { KnexIdempotencyStore } from '@slicekit/runtime/internal';
import {
  addIdempotencyWithKnexStore,
  idempotencyKeysMigration,
} from '@slicekit/runtime/idempotency/knex';
import { useDatabase } from '../../support/services.js';

const timings = { expirationMs: 60_000, inFlightReservationTimeoutMs: 30_000, cachePrefix: 'k' };

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`the idempotency store on the app's Knex, on ${dialect}`, () => {
    const db = useDatabase(dialect);

    it('never creates its table: it starts on a database not migrated, and reserving fails', async () => {
      const store = new KnexIdempotencyStore(db.knex, { tableName: 'not_migrated_keys' }, timings);
      await store.start();
      let failure: unknown;
      await store.isKeyProcessed(conformanceKeyInfo('a-key')).catch((error: unknown) => {
        failure = error;
      });
      expect(failure, 'reserving on a missing table').to.be.instanceOf(Error);
      expect(await db.knex.schema.hasTable('not_migrated_keys')).to.equal(false);
      await store.close();
    });

    it("works once the app's migration ran, and leaves the Knex instance open on close", async () => {
      const migration = idempotencyKeysMigration({ tableName: 'migrated_keys' });
      await migration.up(db.knex);
      const store = new KnexIdempotencyStore(db.knex, { tableName: 'migrated_keys' }, timings);
      await store.start();
      const check = await store.isKeyProcessed(conformanceKeyInfo('a-key'));
      expect(check.processed).to.equal(false);
      await store.close();
      // Still the app's: it answers after the store closed.
      expect(await db.knex('migrated_keys').count({ n: '*' })).to.have.length(1);
      await migration.down(db.knex);
      expect(await db.knex.schema.hasTable('migrated_keys')).to.equal(false);
    });
  });
}

describe("the idempotency store on the app's Knex, on SQLite", () => {
  const db = useDatabase('sqlite');

  it('has a migration that creates nothing there', async () => {
    await idempotencyKeysMigration().up(db.knex);
    expect(await db.knex.schema.hasTable('slicekit_idempotency_keys')).to.equal(false);
  });

  it('refuses to register, pointing at the memory store', () => {
    expect(() => addIdempotencyWithKnexStore(express(), db.knex))
      .to.throw(/memory store/)
      .with.property('code', 'idempotency_store_invalid_settings');
  });
});
