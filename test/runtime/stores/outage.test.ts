// A silent or restarting store server: store operations fail within the configured operation
// timeout instead of hanging, and the same store instance works again once the server is back.
import { expect } from 'chai';
import type { IdempotencyKeyStore, StoreTimings } from '../../../runtime/src/idempotency/store.js';
import { MySqlIdempotencyStore } from '../../../runtime/src/idempotency/stores/mysql-store.js';
import { PostgresIdempotencyStore } from '../../../runtime/src/idempotency/stores/postgres-store.js';
import { RedisIdempotencyStore } from '../../../runtime/src/idempotency/stores/redis-store.js';
import { conformanceKeyInfo } from '@slicekit/runtime/testing';
import { useDatabase, useRedis } from '../../support/services.js';
import { TcpProxy } from './support/tcp-proxy.js';

const timeouts = { operationTimeoutMs: 400, connectTimeoutMs: 400 };

function outageSuite(
  title: string,
  serverUrl: () => string,
  makeStore: (url: string, timings: StoreTimings) => IdempotencyKeyStore,
  prefix: () => string = () => 'outage',
) {
  describe(title, () => {
    let proxy: TcpProxy;
    let store: IdempotencyKeyStore;

    before(async () => {
      const url = new URL(serverUrl());
      proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port) });
      store = makeStore(proxy.url(serverUrl()), {
        expirationMs: 60_000,
        inFlightReservationTimeoutMs: 30_000,
        cachePrefix: prefix(),
      });
      await store.start?.();
    });

    after(async () => {
      proxy?.resume();
      await store?.close?.();
      await proxy?.close();
    });

    it('fails with a store timeout while the server is silent, then serves again when it answers', async () => {
      const before = await store.isKeyProcessed(conformanceKeyInfo('before-outage'));
      expect(before.processed).to.equal(false);

      proxy.pause();
      const error = await store.isKeyProcessed(conformanceKeyInfo('during-outage')).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.have.property('code', 'idempotency_store_timeout');

      proxy.resume();
      const after = await store.isKeyProcessed(conformanceKeyInfo('after-outage'));
      expect(after.processed).to.equal(false);
    });

    it('reconnects by itself after the server dropped every connection', async () => {
      proxy.dropConnections();
      // The first call may meet the dead connection; the store must recover within a few calls.
      let result: unknown;
      for (let attempt = 0; attempt < 5 && result === undefined; attempt++) {
        result = await store
          .isKeyProcessed(conformanceKeyInfo(`after-reset-${attempt}`))
          .catch(() => new Promise((resolve) => setTimeout(() => resolve(undefined), 200)));
      }
      expect(result).to.deep.include({ processed: false });
    });
  });
}

describe('store outage', () => {
  describe('PostgreSQL', () => {
    const db = useDatabase('postgres');
    outageSuite(
      'behind a TCP proxy',
      () => db.url,
      (url, timings) => {
        return new PostgresIdempotencyStore(url, { ...timeouts, createTable: true }, timings);
      },
    );
  });

  describe('MySQL', () => {
    const db = useDatabase('mysql');
    outageSuite(
      'behind a TCP proxy',
      () => db.url,
      (url, timings) => {
        return new MySqlIdempotencyStore(url, { ...timeouts, createTable: true }, timings);
      },
    );
  });

  describe('Redis', () => {
    const redis = useRedis();
    outageSuite(
      'behind a TCP proxy',
      () => redis.url,
      (url, timings) => new RedisIdempotencyStore(url, timeouts, timings),
      () => `${redis.prefix}outage`,
    );
  });
});
