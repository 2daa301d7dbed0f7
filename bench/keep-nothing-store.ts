// The store both idempotency benchmarks use to measure the guard alone: every key is new and
// nothing is kept.
import type { IdempotencyKeyStore, KeyCheckResult } from '../runtime/src/idempotency/index.js';

/** A store that answers every key as new and keeps nothing: what is left is the guard itself. */
export class KeepNothingStore implements IdempotencyKeyStore {
  private reserved = 0;
  isKeyProcessed(): Promise<KeyCheckResult> {
    return Promise.resolve({ processed: false, reservation: String(++this.reserved) });
  }
  markKeyAsProcessed(): Promise<boolean> {
    return Promise.resolve(true);
  }
  releaseReservation(): Promise<void> {
    return Promise.resolve();
  }
}
