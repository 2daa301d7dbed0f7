// A silent or restarting store server: store operations fail within the configured timeouts
// (the Redis store's own, or the app's Knex instance's for PostgreSQL and MySQL) instead of
// hanging, and the same store instance works again once the server is back.
import { expect } from 'chai';
import knexFactory from 'knex';
import { knexConfig } from '@slicekit/runtime/database';
import type { IdempotencyKeyStore, StoreTimings } from '@slicekit/runtime/idempotency';
import { KnexIdempotencyStore } from '@slicekit/runtime/internal';
import { idempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';
import { RedisIdempotencyStore } from '@slicekit/runtime/internal';
import { conformanceKeyInfo } from '@slicekit/runtime/testing';
import { useDatabase, useRedis } from '../../support/services.js';
import { TcpProxy } from './support/tcp-proxy.js';

const timeouts = { operationTimeoutMs: 400, connectTimeoutMs: 400 };
const knexTimeouts = { acquireTimeoutMs: 400, connectTimeoutMs: 400, statementTimeoutMs: 400 };

/** The store on a Knex instance of its own through the proxy, as an app's would be. */
function knexStore(url: string, timings: StoreTimings): IdempotencyKeyStore {
  const knex = knexFactory(knexConfig(url, { timeouts: knexTimeouts, pool: { max: 2 } }));
  const store = new KnexIdempotencyStore(knex, {}, timings);
  return {
    start: () => store.start(),
    isKeyProcessed: (info) => store.isKeyProcessed(info),
    markKeyAsProcessed: (info, response, reservation) =>
      store.markKeyAsProcessed(info, response, reservation),
    releaseReservation: (info, reservation) => store.releaseReservation(info, reservation),
    close: async () => {
      await store.close();
      await knex.destroy();
    },
  };
}

function outageSuite(
  title: string,
  serverUrl: () => string,
  makeStore: (url: string, timings: StoreTimings) => IdempotencyKeyStore,
  prefix: () => string = () => 'outage',
  /** The error code of a timeout: the store's own, or none (the driver's error, through Knex). */
  timeoutCode?: string,
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
      const started = Date.now();
      const error = await store.isKeyProcessed(conformanceKeyInfo('during-outage')).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).to.be.instanceOf(Error);
      expect(Date.now() - started, 'failed within the timeouts').to.be.below(3000);
      if (timeoutCode) expect(error).to.have.property('code', timeoutCode);

      proxy.resume();
      // The connection whose query timed out was dropped: the first call after the outage works.
      const after = await store.isKeyProcessed(conformanceKeyInfo('after-outage'));
      expect(after).to.deep.include({ processed: false });
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
  for (const dialect of ['postgres', 'mysql'] as const) {
    describe(dialect === 'postgres' ? 'PostgreSQL' : 'MySQL', () => {
      const db = useDatabase(dialect);
      before(() => idempotencyKeysMigration().up(db.knex));
      outageSuite("behind a TCP proxy, on the app's Knex", () => db.url, knexStore);
    });
  }

  describe('Redis', () => {
    const redis = useRedis();
    outageSuite(
      'behind a TCP proxy',
      () => redis.url,
      (url, timings) => new RedisIdempotencyStore(url, timeouts, timings),
      () => `${redis.prefix}outage`,
      'idempotency_store_timeout',
    );
  });
});
