// The conformance suite itself: it passes a correct store and catches the classic store bugs
// (check-then-set races, unfenced completion, truncated keys), so a green run means something.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { runStoreConformance } from '@slicekit/runtime/testing';
import {
  IN_FLIGHT_STATUS,
  type CachedResponse,
  type IdempotencyKeyStore,
  type IdempotentKeyInfo,
  type KeyCheckResult,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';

interface Flaws {
  /** Reads, yields, then writes: two callers can both see the key absent. */
  racy?: boolean;
  /** Completes whatever reservation is current, whoever asks. */
  unfenced?: boolean;
  /** Stores under the first 200 characters of the key. */
  truncates?: boolean;
  /** Completes with the reservation's expiry instead of a new one after the expiration. */
  keepsReservationExpiry?: boolean;
  /** Keeps no fingerprint: every duplicate answers null. */
  forgetsFingerprints?: boolean;
  /** Keeps one value per header name (the last). */
  mergesHeaders?: boolean;
}

interface Entry {
  response: CachedResponse;
  reservation: string;
  expiresAt: number;
  fingerprint: string | null;
}

class MapStore implements IdempotencyKeyStore {
  private readonly entries = new Map<string, Entry>();
  constructor(
    private readonly timings: StoreTimings,
    private readonly flaws: Flaws = {},
  ) {}

  private key(info: IdempotentKeyInfo): string {
    return this.flaws.truncates ? info.compositeKey.slice(0, 200) : info.compositeKey;
  }

  async isKeyProcessed(info: IdempotentKeyInfo): Promise<KeyCheckResult> {
    const key = this.key(info);
    const entry = this.entries.get(key);
    if (this.flaws.racy) await new Promise((resolve) => setImmediate(resolve));
    if (entry && entry.expiresAt > Date.now()) {
      const inFlight = entry.response.statusCode === IN_FLIGHT_STATUS;
      return {
        processed: true,
        response: inFlight ? null : entry.response,
        fingerprint: this.flaws.forgetsFingerprints ? null : entry.fingerprint,
      };
    }
    const reservation = randomUUID();
    const now = Date.now();
    const placeholder = {
      statusCode: IN_FLIGHT_STATUS,
      body: null,
      contentType: '',
      headers: [],
      createdAt: new Date(now),
      expiresAt: null,
    };
    this.entries.set(key, {
      response: placeholder,
      reservation,
      expiresAt: now + this.timings.inFlightReservationTimeoutMs,
      fingerprint: info.fingerprint,
    });
    return { processed: false, reservation };
  }

  async markKeyAsProcessed(
    info: IdempotentKeyInfo,
    response: CachedResponse,
    reservation: string,
  ): Promise<boolean> {
    const entry = this.entries.get(this.key(info));
    if (!entry || (!this.flaws.unfenced && entry.reservation !== reservation)) return false;
    const expiresAt = this.flaws.keepsReservationExpiry
      ? entry.expiresAt
      : Date.now() + this.timings.expirationMs;
    this.entries.set(this.key(info), {
      response: {
        ...response,
        headers: this.flaws.mergesHeaders
          ? [...new Map(response.headers.map(([n, v]) => [n, v] as const))]
          : response.headers,
        expiresAt: new Date(expiresAt),
      },
      reservation,
      expiresAt,
      fingerprint: entry.fingerprint,
    });
    return true;
  }

  async releaseReservation(info: IdempotentKeyInfo, reservation: string): Promise<void> {
    const entry = this.entries.get(this.key(info));
    if (entry?.reservation === reservation && entry.response.statusCode === IN_FLIGHT_STATUS) {
      this.entries.delete(this.key(info));
    }
  }
}

async function failuresOf(flaws: Flaws): Promise<string[]> {
  const report = await runStoreConformance({
    createStore: (timings) => new MapStore(timings, flaws),
    shortTimeoutMs: 150,
    rounds: 3,
  });
  return report.failed.map((failure) => failure.title);
}

describe('the store conformance suite', () => {
  it('passes a store that keeps the contract', async () => {
    expect(await failuresOf({})).to.deep.equal([]);
  });

  it('fails a store that reads and then writes as two steps', async () => {
    expect(await failuresOf({ racy: true })).to.include(
      'gives exactly one of many concurrent callers a key, round after round',
    );
  });

  it('fails a store that lets a stale reservation complete', async () => {
    expect(await failuresOf({ unfenced: true })).to.deep.equal([
      'refuses completion with a stale reservation token after a reclaim',
    ]);
  });

  it('fails a store that truncates long keys', async () => {
    expect(await failuresOf({ truncates: true })).to.deep.equal([
      'keeps keys of the maximum length (255) apart, ASCII or multi-byte, even when only the last character differs',
    ]);
  });

  it('fails a store that keeps no request fingerprint', async () => {
    expect(await failuresOf({ forgetsFingerprints: true })).to.deep.equal([
      'answers duplicates with the fingerprint stored by the reservation, in flight and completed',
      'gives a reclaimed key the fingerprint of the caller that reclaimed it',
      'keeps any fingerprint string intact: long, non-ASCII, with separators',
    ]);
  });

  it('fails a store that keeps one value per header name', async () => {
    expect(await failuresOf({ mergesHeaders: true })).to.deep.equal([
      'replays the recorded headers in order, repeated names kept, values byte for byte',
    ]);
  });

  it('fails a store whose completion keeps the reservation’s expiry', async () => {
    expect(await failuresOf({ keepsReservationExpiry: true })).to.deep.equal([
      'keeps a completed response past the in-flight timeout, until its expiration',
    ]);
  });
});
