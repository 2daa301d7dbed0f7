// The stores on a pool or client the application already has: they pass the conformance suite
// on it (a MySQL pool without multiple statements, and a callback-style one, included) and
// never close it.
import { expect } from 'chai';
import { createPool as createCallbackPool, type Pool as CallbackPool } from 'mysql2';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describeStoreConformance } from '@slicekit/runtime/testing';
import { MySqlIdempotencyStore } from '../../../runtime/src/idempotency/stores/mysql-store.js';
import { PostgresIdempotencyStore } from '../../../runtime/src/idempotency/stores/postgres-store.js';
import { RedisIdempotencyStore } from '../../../runtime/src/idempotency/stores/redis-store.js';
import { useDatabase, useRedis } from '../../support/services.js';

const settings = { createTable: true };
const fast = { shortTimeoutMs: 400, rounds: 5, distributed: true };

describe('stores on connections the app owns', () => {
  describe('a pg pool', () => {
    let pool: pg.Pool | undefined;
    // Registered before useDatabase so the pool ends before the database is dropped.
    after(() => pool?.end());
    const db = useDatabase('postgres');
    before(() => {
      pool = new pg.Pool({ connectionString: db.url, max: 5 });
      pool.on('error', () => undefined);
    });

    describeStoreConformance('the PostgreSQL store on it', {
      ...fast,
      createStore: (timings) => new PostgresIdempotencyStore(pool!, settings, timings),
    });

    it('is left open when the store closes', async () => {
      const store = new PostgresIdempotencyStore(pool!, settings, {
        expirationMs: 1000,
        inFlightReservationTimeoutMs: 1000,
        cachePrefix: 'own',
      });
      await store.start();
      await store.close();
      expect((await pool!.query('select 1 as one')).rows).to.deep.equal([{ one: 1 }]);
    });
  });

  describe('a mysql2 pool without multiple statements', () => {
    let pool: mysql.Pool | undefined;
    after(() => pool?.end());
    const db = useDatabase('mysql');
    before(() => {
      pool = mysql.createPool({ uri: db.url, connectionLimit: 5 });
    });

    describeStoreConformance('the MySQL store on it', {
      ...fast,
      createStore: (timings) => new MySqlIdempotencyStore(pool!, settings, timings),
    });

    it('is left open when the store closes', async () => {
      const store = new MySqlIdempotencyStore(pool!, settings, {
        expirationMs: 1000,
        inFlightReservationTimeoutMs: 1000,
        cachePrefix: 'own',
      });
      await store.start();
      await store.close();
      const [rows] = await pool!.query('select 1 as one');
      expect(rows).to.deep.equal([{ one: 1 }]);
    });
  });

  describe('a callback-style mysql2 pool', () => {
    let pool: CallbackPool | undefined;
    after(() => new Promise<void>((resolve) => (pool ? pool.end(() => resolve()) : resolve())));
    const db = useDatabase('mysql');
    before(() => {
      pool = createCallbackPool({ uri: db.url, connectionLimit: 5 });
    });

    describeStoreConformance('the MySQL store on it', {
      ...fast,
      createStore: (timings) => new MySqlIdempotencyStore(pool!, settings, timings),
    });

    it('is left open when the store closes', async () => {
      const store = new MySqlIdempotencyStore(pool!, settings, {
        expirationMs: 1000,
        inFlightReservationTimeoutMs: 1000,
        cachePrefix: 'own',
      });
      await store.start();
      await store.close();
      const [rows] = await pool!.promise().query('select 1 as one');
      expect(rows).to.deep.equal([{ one: 1 }]);
    });
  });

  describe('a node-redis client', () => {
    const redis = useRedis();

    describeStoreConformance('the Redis store on it', {
      ...fast,
      cachePrefix: `${redis.prefix}own`,
      createStore: (timings) => new RedisIdempotencyStore(redis.client, {}, timings),
    });

    it('is left open when the store closes', async () => {
      const store = new RedisIdempotencyStore(
        redis.client,
        {},
        {
          expirationMs: 1000,
          inFlightReservationTimeoutMs: 1000,
          cachePrefix: `${redis.prefix}own`,
        },
      );
      await store.start();
      await store.close();
      expect(await redis.client.ping()).to.equal('PONG');
    });
  });
});
