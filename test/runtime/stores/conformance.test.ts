// Runs the exported store conformance suite against every shipped store on the real servers.
import knexFactory, { type Knex } from 'knex';
import { knexConfig } from '@slicekit/runtime/database';
import { describeStoreConformance } from '@slicekit/runtime/testing';
import { KnexIdempotencyStore } from '@slicekit/runtime/internal';
import { idempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
import { RedisIdempotencyStore } from '@slicekit/runtime/internal';
import { useDatabase, useRedis, type DatabaseHandle } from '../../support/services.js';

/**
 * A Knex instance on the suite's database configured as a generated app's (`knexConfig`: MySQL
 * connections accept one statement per query), the key table made by the app's migration.
 */
function useAppKnex(db: DatabaseHandle): () => Knex {
  let knex: Knex | undefined;
  before(async () => {
    knex = knexFactory(knexConfig(db.url, { pool: { max: 5 } }));
    await idempotencyKeysMigration().up(knex);
  });
  after(() => knex?.destroy());
  return () => knex!;
}

describe('store conformance', () => {
  describeStoreConformance('the memory store', {
    createStore: (timings) => new MemoryIdempotencyStore(timings),
  });

  describe('on PostgreSQL', () => {
    const db = useDatabase('postgres');
    const knex = useAppKnex(db);
    describeStoreConformance("the PostgreSQL store on the app's Knex", {
      distributed: true,
      createStore: (timings) => new KnexIdempotencyStore(knex(), {}, timings),
    });
  });

  describe('on MySQL', () => {
    const db = useDatabase('mysql');
    const knex = useAppKnex(db);
    describeStoreConformance("the MySQL store on the app's Knex", {
      distributed: true,
      createStore: (timings) => new KnexIdempotencyStore(knex(), {}, timings),
    });
  });

  describe('on Redis', () => {
    const redis = useRedis();
    describeStoreConformance('the Redis store', {
      distributed: true,
      cachePrefix: `${redis.prefix}conformance`,
      createStore: (timings) => new RedisIdempotencyStore(redis.url, {}, timings),
    });
  });
});
