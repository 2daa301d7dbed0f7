// One round trip per store operation, counted on the wire through a TCP proxy: reserving a new
// key, completing it and replaying it each cost one request/reply exchange with the server (on
// MySQL, which has no INSERT ... RETURNING, a replay costs two through the app's Knex, which sends
// one statement per query; MariaDB 10.5+ answers it in one).
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { knexConfig } from '@slicekit/runtime/database';
import { conformanceKeyInfo } from '@slicekit/runtime/testing';
import type { IdempotencyKeyStore, StoreTimings } from '@slicekit/runtime/idempotency';
import { KnexIdempotencyStore } from '@slicekit/runtime/internal';
import { idempotencyKeysMigration } from '@slicekit/runtime/idempotency/knex';
import { RedisIdempotencyStore } from '@slicekit/runtime/internal';
import { useDatabase, useRedis } from '../../support/services.js';
import { TcpProxy } from './support/tcp-proxy.js';

interface Trips {
  reserve: number;
  complete: number;
  replay: number;
}

const response = {
  statusCode: 201,
  body: Buffer.from('{"ok":true}'),
  contentType: 'application/json',
  headers: [],
  createdAt: new Date(),
  expiresAt: null,
};

/** Round trips per operation over `samples` keys, after a warm-up (connections, statements). */
async function countTrips(store: IdempotencyKeyStore, proxy: TcpProxy, samples = 20) {
  await store.start?.();
  const keys = Array.from({ length: samples + 3 }, () => conformanceKeyInfo(randomUUID()));
  for (const key of keys.slice(0, 3)) {
    const check = await store.isKeyProcessed(key);
    if (!check.processed) await store.markKeyAsProcessed(key, response, check.reservation);
    await store.isKeyProcessed(key);
  }
  const counted = keys.slice(3);
  const trips: Trips = { reserve: 0, complete: 0, replay: 0 };
  const reservations: string[] = [];
  proxy.resetRoundTrips();
  for (const key of counted) {
    const check = await store.isKeyProcessed(key);
    expect(check.processed).to.equal(false);
    if (!check.processed) reservations.push(check.reservation);
  }
  trips.reserve = proxy.roundTrips / samples;
  proxy.resetRoundTrips();
  for (const [i, key] of counted.entries()) {
    expect(await store.markKeyAsProcessed(key, response, reservations[i]!)).to.equal(true);
  }
  trips.complete = proxy.roundTrips / samples;
  proxy.resetRoundTrips();
  for (const key of counted) {
    expect((await store.isKeyProcessed(key)).processed).to.equal(true);
  }
  trips.replay = proxy.roundTrips / samples;
  return trips;
}

function tripsSuite(
  title: string,
  serverUrl: () => string,
  makeStore: (url: string, timings: StoreTimings) => IdempotencyKeyStore,
  expected: Trips | (() => Trips),
  prefix: () => string = () => 'trips',
) {
  it(title, async () => {
    const url = new URL(serverUrl());
    const proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port) });
    const store = makeStore(proxy.url(serverUrl()), {
      expirationMs: 60_000,
      inFlightReservationTimeoutMs: 30_000,
      cachePrefix: prefix(),
    });
    try {
      const trips = typeof expected === 'function' ? expected() : expected;
      expect(await countTrips(store, proxy)).to.deep.equal(trips);
    } finally {
      await store.close?.();
      await proxy.close();
    }
  });
}

const one = { reserve: 1, complete: 1, replay: 1 };

/** Knex instances the store runs on (the app's, in an app): made per test, destroyed after. */
const knexes: Knex[] = [];
function appKnex(config: Knex.Config): Knex {
  const knex = knexFactory(config);
  knexes.push(knex);
  return knex;
}

describe('store round trips on the wire', () => {
  after(() => Promise.all(knexes.splice(0).map((knex) => knex.destroy())));

  describe('PostgreSQL', () => {
    const db = useDatabase('postgres');
    before(() => idempotencyKeysMigration({ tableName: 'knex_keys' }).up(db.knex));
    tripsSuite(
      "costs one round trip to reserve, complete and replay on the app's Knex",
      () => db.url,
      (url, timings) =>
        new KnexIdempotencyStore(
          appKnex({ client: 'pg', connection: url }),
          { tableName: 'knex_keys' },
          timings,
        ),
      one,
    );
  });

  describe('MySQL', () => {
    const db = useDatabase('mysql');
    before(() => idempotencyKeysMigration({ tableName: 'knex_keys' }).up(db.knex));
    // MariaDB 10.5+ (the servers these tests run on) reads a replay with the reserving INSERT.
    let expectedReplay = 2;
    before(async () => {
      const [[row]] = (await db.knex.raw('SELECT VERSION() AS v')) as [[{ v: string }]];
      if (/^(1[1-9]|10\.([5-9]|\d\d))\..*mariadb/i.test(row!.v)) expectedReplay = 1;
    });
    tripsSuite(
      "costs one round trip to reserve a new key and complete it, and one to replay on MariaDB 10.5+ (two on MySQL), on the app's Knex without multiple statements",
      () => db.url,
      (url, timings) =>
        new KnexIdempotencyStore(appKnex(knexConfig(url)), { tableName: 'knex_keys' }, timings),
      () => ({ reserve: 1, complete: 1, replay: expectedReplay }),
    );
  });

  describe('Redis', () => {
    const redis = useRedis();
    tripsSuite(
      'costs one round trip to reserve, complete and replay',
      () => redis.url,
      (url, timings) => new RedisIdempotencyStore(url, {}, timings),
      one,
      () => `${redis.prefix}trips`,
    );
  });
});
