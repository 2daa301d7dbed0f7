// The base store's decisions, apart from any server: a tiny subclass over a Map, with scripted
// answers where a race needs staging. The shipped stores run the same code on real servers in
// conformance.test.ts, round-trips.test.ts and outage.test.ts.
import { expect } from 'chai';
import { conformanceKeyInfo, runStoreConformance } from '@slicekit/runtime/testing';
import { IN_FLIGHT_STATUS, storageKey, type StoreTimings } from '@slicekit/runtime/idempotency';
import { BaseIdempotencyStore } from '@slicekit/runtime/internal';
import {
  RecordState,
  recordState,
  type NewRecord,
  type StoredRecord,
} from '@slicekit/runtime/internal';

const timings: StoreTimings = {
  expirationMs: 60_000,
  inFlightReservationTimeoutMs: 30_000,
  cachePrefix: 'base',
};

/** The four operations over a Map; `script` can answer `insertIfAbsent` instead, once per call. */
class MapStore extends BaseIdempotencyStore {
  readonly records = new Map<string, StoredRecord>();
  readonly calls: string[] = [];
  script: Array<StoredRecord | undefined> = [];
  loseTakeOvers = 0;

  constructor(t: StoreTimings = timings) {
    super('map', t);
  }

  protected async insertIfAbsent(key: string, placeholder: NewRecord) {
    this.calls.push('insertIfAbsent');
    if (this.script.length > 0) return this.script.shift();
    const current = this.records.get(key);
    if (current) return current;
    this.records.set(key, placeholder);
    return placeholder;
  }

  protected async takeOverExpired(key: string, expired: StoredRecord, placeholder: NewRecord) {
    this.calls.push(`takeOverExpired ${expired.reservation}`);
    if (this.loseTakeOvers > 0) {
      this.loseTakeOvers--;
      return false;
    }
    const current = this.records.get(key);
    if (current && current.reservation !== expired.reservation) return false;
    this.records.set(key, placeholder);
    return true;
  }

  protected async completeIfOwned(key: string, reservation: string, response: NewRecord) {
    this.calls.push('completeIfOwned');
    const current = this.records.get(key);
    if (current?.reservation !== reservation || current.statusCode !== IN_FLIGHT_STATUS) {
      return false;
    }
    this.records.set(key, response);
    return true;
  }

  protected async deleteIfOwned(key: string, reservation: string) {
    this.calls.push('deleteIfOwned');
    const current = this.records.get(key);
    if (current?.reservation === reservation && current.statusCode === IN_FLIGHT_STATUS) {
      this.records.delete(key);
    }
  }
}

const info = conformanceKeyInfo('order-1');
const key = storageKey(timings.cachePrefix, info);
const record = (fields: Partial<StoredRecord>): StoredRecord => ({
  reservation: 'someone-else',
  statusCode: IN_FLIGHT_STATUS,
  body: null,
  contentType: '',
  headers: [],
  createdAtMs: Date.now(),
  expiresAtMs: Date.now() + 30_000,
  fingerprint: null,
  ...fields,
});

describe('the base idempotency store', () => {
  describe('record states', () => {
    const now = 1_000_000;
    it('reads a record by its timestamps first, then by the in-flight sentinel', () => {
      const table: Array<[Partial<StoredRecord>, RecordState]> = [
        [{ statusCode: IN_FLIGHT_STATUS, expiresAtMs: now + 1 }, RecordState.inFlight],
        [{ statusCode: 201, expiresAtMs: now + 1 }, RecordState.completed],
        [{ statusCode: 201, expiresAtMs: null }, RecordState.completed],
        [{ statusCode: IN_FLIGHT_STATUS, expiresAtMs: now }, RecordState.expired],
        [{ statusCode: 201, expiresAtMs: now - 1 }, RecordState.expired],
      ];
      for (const [fields, state] of table) {
        expect(recordState(record(fields), now), JSON.stringify(fields)).to.equal(state);
      }
    });

    it('names every state as a string, with 102 kept as the status sentinel only', () => {
      expect(Object.values(RecordState)).to.deep.equal(['in_flight', 'completed', 'expired']);
      expect(IN_FLIGHT_STATUS).to.equal(102);
    });
  });

  it('reserves a new key under its storage key, and answers a live reservation as in flight', async () => {
    const store = new MapStore();
    const first = await store.isKeyProcessed(info);
    expect(first.processed).to.equal(false);
    const held = store.records.get(key)!;
    expect(held).to.include({ statusCode: IN_FLIGHT_STATUS, body: null, contentType: '' });
    expect(held.expiresAtMs! - held.createdAtMs).to.equal(timings.inFlightReservationTimeoutMs);
    if (!first.processed) expect(held.reservation).to.equal(first.reservation);
    expect(await store.isKeyProcessed(info)).to.deep.equal({
      processed: true,
      response: null,
      fingerprint: null,
    });
  });

  it('keeps the reserving request’s fingerprint through completion and answers it to duplicates', async () => {
    const store = new MapStore();
    const first = conformanceKeyInfo('order-fp', { fingerprint: 'first' });
    const check = await store.isKeyProcessed(first);
    if (check.processed) throw new Error('expected a new key');
    const other = conformanceKeyInfo('order-fp', { fingerprint: 'other' });
    expect(await store.isKeyProcessed(other)).to.include({ fingerprint: 'first', response: null });
    const response = {
      statusCode: 201,
      body: null,
      contentType: 'application/json',
      headers: [],
      createdAt: new Date(),
      expiresAt: null,
    };
    await store.markKeyAsProcessed(first, response, check.reservation);
    const stored = store.records.get(storageKey(timings.cachePrefix, first))!;
    expect(stored.fingerprint).to.equal('first');
    expect(await store.isKeyProcessed(other)).to.include({ fingerprint: 'first' });
  });

  it('stores a completion for the holder, kept for the expiration, and replays it', async () => {
    const store = new MapStore();
    const check = await store.isKeyProcessed(info);
    if (check.processed) throw new Error('expected a new key');
    const body = Buffer.from('{"id":1}');
    const response = {
      statusCode: 201,
      body,
      contentType: 'application/json',
      headers: [],
      createdAt: new Date(0),
      expiresAt: null,
    };
    expect(await store.markKeyAsProcessed(info, response, 'stale-token')).to.equal(false);
    expect(await store.markKeyAsProcessed(info, response, check.reservation)).to.equal(true);
    const stored = store.records.get(key)!;
    expect(stored.expiresAtMs! - stored.createdAtMs).to.equal(timings.expirationMs);
    expect(stored.createdAtMs).to.be.closeTo(Date.now(), 1000);
    const replay = await store.isKeyProcessed(info);
    expect(replay).to.deep.equal({
      processed: true,
      response: {
        statusCode: 201,
        body,
        contentType: 'application/json',
        headers: [],
        createdAt: new Date(stored.createdAtMs),
        expiresAt: new Date(stored.expiresAtMs!),
      },
      fingerprint: null,
    });
  });

  it('releases only the holder’s reservation', async () => {
    const store = new MapStore();
    const check = await store.isKeyProcessed(info);
    if (check.processed) throw new Error('expected a new key');
    await store.releaseReservation(info, 'stale-token');
    expect(store.records.has(key)).to.equal(true);
    await store.releaseReservation(info, check.reservation);
    expect(store.records.has(key)).to.equal(false);
  });

  it('takes over a record expired by its timestamps, whatever its status says', async () => {
    for (const statusCode of [IN_FLIGHT_STATUS, 201]) {
      const store = new MapStore();
      store.records.set(key, record({ statusCode, expiresAtMs: Date.now() - 1 }));
      const check = await store.isKeyProcessed(info);
      expect(check.processed, `status ${statusCode}`).to.equal(false);
      expect(store.calls).to.deep.equal(['insertIfAbsent', 'takeOverExpired someone-else']);
    }
  });

  it('goes round again after losing a take-over, and reads the winner’s reservation', async () => {
    const store = new MapStore();
    const expired = record({ expiresAtMs: Date.now() - 1 });
    store.script = [expired, record({ reservation: 'winner' })];
    store.loseTakeOvers = 1;
    expect(await store.isKeyProcessed(info)).to.deep.equal({
      processed: true,
      response: null,
      fingerprint: null,
    });
    expect(store.calls).to.deep.equal([
      'insertIfAbsent',
      'takeOverExpired someone-else',
      'insertIfAbsent',
    ]);
  });

  it('asks again when the record that blocked the insert vanished before it was read', async () => {
    const store = new MapStore();
    store.script = [undefined, undefined];
    expect((await store.isKeyProcessed(info)).processed).to.equal(false);
    expect(store.calls).to.have.length(3);
  });

  it('gives up with idempotency_store_contention after eight lost races', async () => {
    const store = new MapStore();
    store.script = Array<undefined>(8).fill(undefined);
    const error = await store.isKeyProcessed(info).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).to.include({ name: 'IdempotencyStoreError', store: 'map' });
    expect(error).to.have.property('code', 'idempotency_store_contention');
    expect(store.calls).to.have.length(8);
  });

  it('passes the store conformance suite over a Map', async () => {
    const report = await runStoreConformance({
      createStore: (t) => new MapStore(t),
      shortTimeoutMs: 150,
      rounds: 3,
    });
    expect(report.failed.map((failure) => failure.title)).to.deep.equal([]);
  });
});
