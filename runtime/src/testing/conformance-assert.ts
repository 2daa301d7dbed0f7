// Assertions the conformance cases share: what a new key, an in-flight key and a replay look like
// through the store interface.
import assert from 'node:assert/strict';
import type { IdempotencyKeyStore, KeyCheckResult } from '../idempotency/index.js';
import type { ConformanceContext } from './conformance-context.js';
import { conformanceKeyInfo } from './key-info.js';

export function reservationOf(result: KeyCheckResult, what: string): string {
  assert.equal(result.processed, false, `${what}: expected the key to be new`);
  if (result.processed) throw new Error('unreachable');
  assert.equal(typeof result.reservation, 'string', `${what}: expected a reservation token`);
  assert.ok(result.reservation.length > 0, `${what}: expected a non-empty reservation token`);
  return result.reservation;
}

export function assertInFlight(result: KeyCheckResult, what: string): void {
  assert.equal(result.processed, true, `${what}: expected in flight, got a new key`);
  if (!result.processed) return;
  assert.equal(result.response, null, `${what}: expected in flight, got a response`);
}

export function assertSameBytes(actual: Buffer | null, expected: Buffer, what: string): void {
  assert.ok(Buffer.isBuffer(actual), `${what}: expected a Buffer body, got ${String(actual)}`);
  assert.equal(actual.length, expected.length, `${what}: body length`);
  assert.ok(actual.equals(expected), `${what}: body bytes differ`);
}

/** Reserves `key`, completes it with `body`, and checks the replay carries it back unchanged. */
export async function roundTrip(
  context: ConformanceContext,
  store: IdempotencyKeyStore,
  key: string,
  body: Buffer | null,
): Promise<Buffer | null> {
  const info = conformanceKeyInfo(key);
  const reservation = reservationOf(await store.isKeyProcessed(info), key);
  const wrote = await store.markKeyAsProcessed(info, context.response(200, body), reservation);
  assert.equal(wrote, true, 'the reservation holder could not complete');
  const replay = await store.isKeyProcessed(info);
  assert.equal(replay.processed, true);
  if (!replay.processed || !replay.response)
    throw new assert.AssertionError({ message: 'no response replayed' });
  return replay.response.body;
}
