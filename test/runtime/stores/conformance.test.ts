// Runs the exported store conformance suite against every shipped store on the real servers.
import { describeStoreConformance } from '@slicekit/runtime/testing';
import { MemoryIdempotencyStore } from '../../../runtime/src/idempotency/stores/memory.js';
import { MySqlIdempotencyStore } from '../../../runtime/src/idempotency/stores/mysql-store.js';
import { PostgresIdempotencyStore } from '../../../runtime/src/idempotency/stores/postgres-store.js';
import { RedisIdempotencyStore } from '../../../runtime/src/idempotency/stores/redis-store.js';
import { useDatabase, useRedis } from '../../support/services.js';

describe('store conformance', () => {
  describeStoreConformance('the memory store', {
    createStore: (timings) => new MemoryIdempotencyStore(timings),
  });

  describe('on PostgreSQL', () => {
    const db = useDatabase('postgres');
    describeStoreConformance('the PostgreSQL store', {
      distributed: true,
      createStore: (timings) =>
        new PostgresIdempotencyStore(db.url, { createTable: true, poolSize: 5 }, timings),
    });
  });

  describe('on MySQL', () => {
    const db = useDatabase('mysql');
    describeStoreConformance('the MySQL store', {
      distributed: true,
      createStore: (timings) =>
        new MySqlIdempotencyStore(db.url, { createTable: true, poolSize: 5 }, timings),
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
