// Conformance cases for what a store keeps about the request and response besides the body: the
// request fingerprint that tells a retry from a reused key, and the headers a replay sends again.
import assert from 'node:assert/strict';
import type { KeyCheckResult, ResponseHeader } from '../idempotency/index.js';
import { assertInFlight, reservationOf } from './conformance-assert.js';
import type { ConformanceCase } from './conformance-cases.js';
import { conformanceKeyInfo } from './key-info.js';

const FIRST = 'a'.repeat(64);
const SECOND = 'b'.repeat(64);

function fingerprintOf(result: KeyCheckResult, what: string): string | null {
  assert.equal(result.processed, true, `${what}: expected a duplicate`);
  if (!result.processed) throw new Error('unreachable');
  assert.notEqual(result.fingerprint, undefined, `${what}: the answer carries no fingerprint`);
  return result.fingerprint;
}

export const requestConformanceCases: readonly ConformanceCase[] = [
  {
    title:
      'answers duplicates with the fingerprint stored by the reservation, in flight and completed',
    async run(context) {
      const store = await context.store();
      const first = conformanceKeyInfo('fingerprinted', { fingerprint: FIRST });
      const other = conformanceKeyInfo('fingerprinted', { fingerprint: SECOND });
      const reservation = reservationOf(await store.isKeyProcessed(first), 'first call');
      const inFlight = await store.isKeyProcessed(other);
      assertInFlight(inFlight, 'a duplicate with another fingerprint');
      assert.equal(fingerprintOf(inFlight, 'in flight'), FIRST, 'the in-flight fingerprint');
      const response = context.response(201, Buffer.from('{"id":1}'));
      assert.equal(await store.markKeyAsProcessed(first, response, reservation), true);
      const completed = await store.isKeyProcessed(other);
      assert.ok(completed.processed && completed.response, 'the completed key replays');
      assert.equal(fingerprintOf(completed, 'completed'), FIRST, 'the completed fingerprint');
    },
  },
  {
    title: 'answers a null fingerprint for a key reserved without one',
    async run(context) {
      const store = await context.store();
      const bare = conformanceKeyInfo('no-fingerprint');
      const reservation = reservationOf(await store.isKeyProcessed(bare), 'first call');
      const probe = conformanceKeyInfo('no-fingerprint', { fingerprint: SECOND });
      assert.equal(fingerprintOf(await store.isKeyProcessed(probe), 'in flight'), null);
      await store.markKeyAsProcessed(bare, context.response(200, null), reservation);
      assert.equal(fingerprintOf(await store.isKeyProcessed(probe), 'completed'), null);
    },
  },
  {
    title: 'gives a reclaimed key the fingerprint of the caller that reclaimed it',
    async run(context) {
      const store = await context.shortLivedStore();
      reservationOf(
        await store.isKeyProcessed(conformanceKeyInfo('refingerprinted', { fingerprint: FIRST })),
        'first call',
      );
      await context.waitPastShortTimeout();
      const second = conformanceKeyInfo('refingerprinted', { fingerprint: SECOND });
      reservationOf(await store.isKeyProcessed(second), 'after the in-flight timeout');
      const duplicate = await store.isKeyProcessed(second);
      assert.equal(fingerprintOf(duplicate, 'after the reclaim'), SECOND);
    },
  },
  {
    title: 'keeps any fingerprint string intact: long, non-ASCII, with separators',
    async run(context) {
      const store = await context.store();
      // A custom requestFingerprint may return any string, not only a hex digest.
      const fingerprint = `v2|POST /orders|${'注文😀'.repeat(40)}|"quoted"\n`;
      const info = conformanceKeyInfo('custom-fingerprint', { fingerprint });
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      assert.equal(fingerprintOf(await store.isKeyProcessed(info), 'in flight'), fingerprint);
      await store.markKeyAsProcessed(info, context.response(200, Buffer.from('ok')), reservation);
      assert.equal(fingerprintOf(await store.isKeyProcessed(info), 'completed'), fingerprint);
    },
  },
  {
    title: 'replays the recorded headers in order, repeated names kept, values byte for byte',
    async run(context) {
      const store = await context.store();
      const headers: ResponseHeader[] = [
        ['Location', '/orders/8e03978e-40d5-43e8-bc93-6894a57f9324'],
        ['ETag', 'W/"2a-1f3c"'],
        ['Link', '</orders?page=2>; rel="next", </orders?page=9>; rel="last"'],
        ['Link', '</terms>; rel="terms-of-service"'],
        // Header bytes above 0x7F arrive in Node as one character each; they must come back so.
        ['Content-Location', '/caf\u00e9/\u00ff\u0080'],
        ['Last-Modified', 'Tue, 15 Nov 1994 08:12:31 GMT'],
      ];
      const info = conformanceKeyInfo('headers');
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      const response = context.response(201, Buffer.from('{}'), undefined, undefined, headers);
      assert.equal(await store.markKeyAsProcessed(info, response, reservation), true);
      const replay = await store.isKeyProcessed(info);
      assert.ok(replay.processed && replay.response, 'the completed key replays');
      assert.deepEqual(
        replay.response.headers.map(([name, value]) => [name, value]),
        headers,
        'the replayed headers',
      );
    },
  },
  {
    title: 'replays a response recorded without headers with an empty header list',
    async run(context) {
      const store = await context.store();
      const info = conformanceKeyInfo('no-headers');
      const reservation = reservationOf(await store.isKeyProcessed(info), 'first call');
      await store.markKeyAsProcessed(info, context.response(204, null), reservation);
      const replay = await store.isKeyProcessed(info);
      assert.ok(replay.processed && replay.response, 'the completed key replays');
      assert.deepEqual([...replay.response.headers], [], 'no headers');
    },
  },
];
