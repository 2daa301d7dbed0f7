// The cases of the store conformance suite: each is one rule of the store contract, checked
// through the public store interface only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { IN_FLIGHT_STATUS } from '../idempotency/index.js';
import { assertInFlight, assertSameBytes, reservationOf, roundTrip } from './conformance-assert.js';
import type { ConformanceContext } from './conformance-context.js';
import { conformanceKeyInfo } from './key-info.js';

export interface ConformanceCase {
  readonly title: string;
  run(context: ConformanceContext): Promise<void>;
}

export const conformanceCases: readonly ConformanceCase[] = [
  {
    title: 'reserves a new key and answers "not processed" with a reservation token',
    async run(context) {
      const store = await context.store();
      reservationOf(await store.isKeyProcessed(conformanceKeyInfo('new-key')), 'first call');
    },
  },
  {
    title: 'answers "in flight" (processed, no response) while the key is reserved',
    async run(context) {
      const store = await context.store();
      const info = conformanceKeyInfo('in-flight');
      reservationOf(await store.isKeyProcessed(info), 'first call');
      assertInFlight(await store.isKeyProcessed(info), 'second call');
      assertInFlight(await store.isKeyProcessed(info), 'third call');
    },
  },
  {
    title: 'replays a completed response with its status, body and content type',
    async run(context) {
      const store = await context.store();
      const info = conformanceKeyInfo('completed');
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      const body = Buffer.from('{"id":42,"name":"Crème ☕"}');
      const stored = context.response(201, body, 'application/json; charset=utf-8');
      assert.equal(await store.markKeyAsProcessed(info, stored, reservation), true);
      const replay = await store.isKeyProcessed(info);
      assert.equal(replay.processed, true);
      if (!replay.processed || !replay.response)
        throw new assert.AssertionError({ message: 'no response replayed' });
      assert.equal(replay.response.statusCode, 201);
      assert.equal(replay.response.contentType, 'application/json; charset=utf-8');
      assertSameBytes(replay.response.body, body, 'replayed body');
      assert.ok(replay.response.createdAt instanceof Date, 'createdAt is a Date');
      assert.ok(replay.response.expiresAt instanceof Date, 'a completed response expires');
      assert.ok(replay.response.expiresAt.getTime() > Date.now(), 'expiresAt lies in the future');
    },
  },
  {
    title: 'overwrites the in-flight placeholder when the reservation holder completes',
    async run(context) {
      const store = await context.store();
      const info = conformanceKeyInfo('overwrite');
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      assertInFlight(await store.isKeyProcessed(info), 'before completion');
      await store.markKeyAsProcessed(info, context.response(200, Buffer.from('done')), reservation);
      const after = await store.isKeyProcessed(info);
      assert.equal(after.processed, true);
      if (!after.processed) return;
      assert.ok(after.response, 'after completion the key replays a response');
      assert.notEqual(after.response.statusCode, IN_FLIGHT_STATUS);
    },
  },
  {
    title: 'treats a completed key as new once its expiration has passed',
    async run(context) {
      const store = await context.shortLivedStore();
      const info = conformanceKeyInfo('expires');
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      const response = context.response(
        200,
        Buffer.from('x'),
        'text/plain',
        context.options.shortTimeoutMs,
      );
      assert.equal(await store.markKeyAsProcessed(info, response, reservation), true);
      await context.waitPastShortTimeout();
      reservationOf(await store.isKeyProcessed(info), 'after expiration');
    },
  },
  {
    title: 'keeps a completed response past the in-flight timeout, until its expiration',
    async run(context) {
      const store = await context.shortReservationStore();
      const info = conformanceKeyInfo('outlives-reservation');
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      const body = Buffer.from('kept');
      assert.equal(
        await store.markKeyAsProcessed(info, context.response(200, body), reservation),
        true,
      );
      // The completion carries the response's own lifetime, not the reservation's.
      await context.waitPastShortTimeout();
      const replay = await store.isKeyProcessed(info);
      assert.equal(replay.processed, true, 'the completed key was treated as new');
      if (!replay.processed || !replay.response)
        throw new assert.AssertionError({ message: 'no response replayed' });
      assertSameBytes(replay.response.body, body, 'replayed body');
    },
  },
  {
    title: 'lets a new caller reclaim a reservation older than the in-flight timeout',
    async run(context) {
      const store = await context.shortLivedStore();
      const info = conformanceKeyInfo('reclaim');
      const first = reservationOf(await store.isKeyProcessed(info), 'first call');
      await context.waitPastShortTimeout();
      const second = reservationOf(await store.isKeyProcessed(info), 'after the in-flight timeout');
      assert.notEqual(second, first, 'the reclaimed reservation has a new token');
    },
  },
  {
    title: 'refuses completion with a stale reservation token after a reclaim',
    async run(context) {
      const store = await context.shortLivedStore();
      const info = conformanceKeyInfo('stale');
      const stale = reservationOf(await store.isKeyProcessed(info), 'first call');
      await context.waitPastShortTimeout();
      const current = reservationOf(await store.isKeyProcessed(info), 'reclaim');
      const late = context.response(200, Buffer.from('late'), 'text/plain', 60_000);
      assert.equal(await store.markKeyAsProcessed(info, late, stale), false, 'stale token wrote');
      assertInFlight(await store.isKeyProcessed(info), 'after the refused completion');
      await store.releaseReservation(info, stale);
      assertInFlight(await store.isKeyProcessed(info), 'after a stale release');
      const fresh = context.response(200, Buffer.from('fresh'), 'text/plain', 60_000);
      assert.equal(await store.markKeyAsProcessed(info, fresh, current), true);
      const replay = await store.isKeyProcessed(info);
      if (!replay.processed || !replay.response)
        throw new assert.AssertionError({ message: 'no response replayed' });
      assertSameBytes(replay.response.body, Buffer.from('fresh'), 'the current holder’s body');
    },
  },
  {
    title: 'releases a reservation so the same key is new again at once',
    async run(context) {
      const store = await context.store();
      const info = conformanceKeyInfo('release');
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      await store.releaseReservation(info, reservation);
      reservationOf(await store.isKeyProcessed(info), 'after the release');
    },
  },
  {
    title: 'gives exactly one of many concurrent callers a key, round after round',
    async run(context) {
      const { concurrency, rounds, distributed } = context.options;
      // Distributed stores race two instances (two pools or clients) as two app processes would.
      const stores = distributed
        ? [await context.store(), await context.store()]
        : [await context.store()];
      for (let round = 0; round < rounds; round++) {
        const info = conformanceKeyInfo(`race-${round}`);
        const results = await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            stores[i % stores.length]!.isKeyProcessed(info),
          ),
        );
        const winners = results.filter((result) => !result.processed);
        assert.equal(winners.length, 1, `round ${round}: ${winners.length} callers got the key`);
        for (const result of results) {
          if (result.processed)
            assert.equal(result.response, null, `round ${round}: a loser saw a response`);
        }
      }
    },
  },
  {
    title:
      'keeps keys of the maximum length (255) apart, ASCII or multi-byte, even when only the last character differs',
    async run(context) {
      const store = await context.store();
      // 255 UTF-16 units each: 255 bytes of ASCII, 765 bytes of CJK, 1020 bytes of emoji pairs.
      const stems = ['k'.repeat(254), '注'.repeat(254), '😀'.repeat(127)];
      for (const stem of stems) {
        for (const last of ['a', 'b']) {
          const key = `${stem}${last}`;
          assert.equal(key.length, 255);
          const body = await roundTrip(context, store, key, Buffer.from(last));
          assertSameBytes(body, Buffer.from(last), `${key.length}-character key ending in ${last}`);
        }
      }
    },
  },
  {
    title: 'keeps Unicode keys apart: case, normalisation form, emoji and CJK',
    async run(context) {
      const store = await context.store();
      const keys = ['Clé', 'clé', 'Cle\u0301', '注文-😀', '注文-😁', '\u05e9\u05dc\u05d5\u05dd'];
      for (const key of keys) {
        const body = await roundTrip(context, store, key, Buffer.from(key, 'utf8'));
        assertSameBytes(body, Buffer.from(key, 'utf8'), `key ${JSON.stringify(key)}`);
      }
    },
  },
  {
    title: 'keeps one key apart across callers, methods and routes',
    async run(context) {
      const store = await context.store();
      const variants = [
        {},
        { scope: 'user:1' },
        { scope: 'user:2' },
        { method: 'PUT' },
        { endpoint: '/OTHER' },
      ];
      for (const parts of variants) {
        reservationOf(
          await store.isKeyProcessed(conformanceKeyInfo('shared', parts)),
          JSON.stringify(parts),
        );
      }
    },
  },
  {
    title: 'round-trips a body-less response as a null body',
    async run(context) {
      const store = await context.store();
      assert.equal(await roundTrip(context, store, 'no-body', null), null);
    },
  },
  {
    title: 'round-trips a 1 MB binary body byte for byte',
    async run(context) {
      const store = await context.store();
      // Every byte value, including NUL, CR, LF and invalid UTF-8 sequences.
      const body = Buffer.concat([
        Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
        randomBytes(1024 * 1024),
      ]);
      assertSameBytes(await roundTrip(context, store, 'large-body', body), body, '1 MB body');
    },
  },
];
