// The in-process store: the shared store conformance suite, a race of 25 concurrent requests
// per key through the guard (which a deliberately non-atomic store must fail), and expiry that
// returns memory without traffic.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  addIdempotentKeyWithStore,
  closeIdempotency,
  IN_FLIGHT_STATUS,
  requiredIdempotentKey,
  silentLogger,
  startApp,
  storageKey,
  type IdempotencyKeyStore,
  type IdempotencyStoreSource,
  type KeyCheckResult,
  type StoreTimings,
} from '@slicekit/runtime/idempotency';
import { describeStoreConformance, conformanceKeyInfo } from '@slicekit/runtime/testing';
import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Checks, then writes after a pause: the read-then-write the store contract forbids. Under
 * concurrency several callers see the key absent and all "win".
 */
class NonAtomicStore implements IdempotencyKeyStore {
  private readonly keys = new Map<string, { token: string; body: Buffer | null }>();
  private next = 0;
  constructor(private readonly timings: StoreTimings) {}
  async isKeyProcessed(
    info: Parameters<IdempotencyKeyStore['isKeyProcessed']>[0],
  ): Promise<KeyCheckResult> {
    const key = storageKey(this.timings.cachePrefix, info);
    const seen = this.keys.has(key);
    await sleep(5);
    if (seen) return { processed: true, response: null, fingerprint: null };
    const token = String(++this.next);
    this.keys.set(key, { token, body: null });
    return { processed: false, reservation: token };
  }
  async markKeyAsProcessed(): Promise<boolean> {
    return true;
  }
  async releaseReservation(): Promise<void> {}
}

/** Runs `rounds` rounds of `concurrency` simultaneous POSTs with one key; answers handler runs per round. */
async function raceThroughGuard(store: IdempotencyStoreSource, concurrency = 25, rounds = 20) {
  const app = express();
  const runs = new Map<string, number>();
  addIdempotentKeyWithStore(app, store, (o) => (o.logger = silentLogger));
  app.post('/race', requiredIdempotentKey(), async (req, res) => {
    const key = req.get('x-idempotency-key')!;
    runs.set(key, (runs.get(key) ?? 0) + 1);
    await sleep(20);
    res.status(201).json({ key });
  });
  const server = await startApp(app, { port: 0, host: '127.0.0.1' });
  try {
    const perRound: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const key = `race-${round}`;
      const answers = await Promise.all(
        Array.from({ length: concurrency }, () =>
          request(server).post('/race').set('X-Idempotency-Key', key),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses.filter((s) => s !== 201 && s !== 409)).to.deep.equal([]);
      perRound.push(runs.get(key) ?? 0);
    }
    return perRound;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describeStoreConformance('memory idempotency store conformance', {
  createStore: (timings) => new MemoryIdempotencyStore(timings),
  shortTimeoutMs: 300,
});

describe('memory idempotency store', () => {
  it('runs the handler exactly once per round for 25 concurrent requests with one key, 20 rounds', async () => {
    const perRound = await raceThroughGuard((timings) => new MemoryIdempotencyStore(timings));
    expect(perRound).to.deep.equal(Array(20).fill(1));
  });

  it('catches a race: a non-atomic store fails the same check', async () => {
    const perRound = await raceThroughGuard(NonAtomicStore);
    expect(
      perRound.some((runs) => runs > 1),
      `runs per round: ${perRound.join(',')}`,
    ).to.equal(true);
  });

  it('holds a reservation as the in-flight sentinel 102 and answers it as a response-less duplicate', async () => {
    const store = new MemoryIdempotencyStore({
      expirationMs: 1000,
      inFlightReservationTimeoutMs: 1000,
      cachePrefix: 'mem',
    });
    const info = conformanceKeyInfo('sentinel');
    const first = await store.isKeyProcessed(info);
    expect(first.processed).to.equal(false);
    const held = (store as unknown as { entries: Map<string, { statusCode: number }> }).entries;
    expect([...held.values()].map((entry) => entry.statusCode)).to.deep.equal([IN_FLIGHT_STATUS]);
    expect(await store.isKeyProcessed(info)).to.deep.equal({
      processed: true,
      response: null,
      fingerprint: null,
    });
    await store.close();
  });

  it('keeps nothing past expiration and returns to an empty map without traffic', async () => {
    const store = new MemoryIdempotencyStore({
      expirationMs: 150,
      inFlightReservationTimeoutMs: 100,
      cachePrefix: 'mem',
    });
    for (let i = 0; i < 100; i++) {
      const info = conformanceKeyInfo(`k-${i}`);
      const check = await store.isKeyProcessed(info);
      if (check.processed) throw new Error('expected a new key');
      if (i % 2 === 0) {
        const now = Date.now();
        const response = {
          statusCode: 200,
          body: Buffer.from('x'),
          contentType: 'text/plain',
          headers: [],
          createdAt: new Date(now),
          expiresAt: new Date(now + 150),
        };
        await store.markKeyAsProcessed(info, response, check.reservation);
      }
    }
    expect(store.size).to.equal(100);
    await sleep(400);
    // No call since: the unref'd timer swept completed keys and abandoned reservations.
    expect(store.size).to.equal(0);
    await store.close();
  });

  it('does not keep the process alive with its expiry timer', async function () {
    // A fresh process compiles the runtime's source first: slow on a busy machine.
    this.timeout(90_000);
    const { spawnSync } = await import('node:child_process');
    const script = `
      import { MemoryIdempotencyStore } from '@slicekit/runtime/internal';
      const store = new MemoryIdempotencyStore({ expirationMs: 3_600_000, inFlightReservationTimeoutMs: 60_000, cachePrefix: 'p' });
      await store.isKeyProcessed({ idempotentKey: 'k', endpoint: '/X', method: 'POST', scope: '', compositeKey: ':POST:/X:k', safeKey: 'k' });
    `;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--conditions=slicekit-source', '--input-type=module', '-e', script],
      {
        timeout: 80_000,
        encoding: 'utf8',
      },
    );
    expect(child.error, child.stderr).to.equal(undefined);
    expect(child.status, child.stderr).to.equal(0);
  });

  it('closing the guard drops the keys', async () => {
    const app = express();
    let store: MemoryIdempotencyStore | undefined;
    addIdempotentKeyWithStore(
      app,
      (t) => (store = new MemoryIdempotencyStore(t)),
      (o) => (o.logger = silentLogger),
    );
    app.post('/x', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    const server = await startApp(app, { port: 0, host: '127.0.0.1' });
    await request(server).post('/x').set('X-Idempotency-Key', 'k').expect(201);
    expect(store!.size).to.equal(1);
    await new Promise((resolve) => server.close(resolve));
    await closeIdempotency(app);
    expect(store!.size).to.equal(0);
  });
});
