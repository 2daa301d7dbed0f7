// The Redis registration's handle answers a readiness check: ping() resolves while Redis answers
// and rejects within the operation timeout while it does not, then recovers by itself.
import { expect } from 'chai';
import express from 'express';
import { closeIdempotency, prepareApp, silentLogger } from '@slicekit/runtime/idempotency';
import { addIdempotencyWithRedisStore } from '@slicekit/runtime/idempotency/redis';
import { useRedis } from '../../support/services.js';
import { TcpProxy } from './support/tcp-proxy.js';

describe("the Redis store's ping", function () {
  this.timeout(20_000);
  const redis = useRedis();

  it('rejects before the app started the store, then answers while Redis does', async () => {
    const target = new URL(redis.url);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port) });
    const app = express();
    const store = addIdempotencyWithRedisStore(
      app,
      { connection: proxy.url(redis.url), operationTimeoutMs: 300 },
      (options) => {
        options.logger = silentLogger;
        options.cachePrefix = `${redis.prefix}ping`;
      },
    );
    try {
      const early = await store.ping().catch((error: unknown) => error);
      expect(early).to.have.property('code', 'idempotency_store_not_started');
      await prepareApp(app);
      await store.ping();

      proxy.pause();
      const down = await store.ping().catch((error: unknown) => error);
      expect(down).to.have.property('code', 'idempotency_store_timeout');

      proxy.resume();
      await store.ping();
    } finally {
      proxy.resume();
      await closeIdempotency(app);
      await proxy.close();
    }
  });
});
