// Starting and stopping the event bus with a backlog: start() returns before a slow backlog is
// delivered, the backlog is delivered in the background in recording order, and stop() mid-backlog
// waits for the event in flight and leaves the rest due for the next start.
import { expect } from 'chai';
import {
  EventBus,
  outboxMigration,
  recordEvents,
  type EventsLogger,
  type OutboxEvent,
} from '@slicekit/runtime/events';
import knexFactory, { type Knex } from 'knex';
import { describeEachDatabase, type DatabaseHandle } from '../../support/services.js';

interface TestEvents {
  ThingCreated: { n: number };
}

const table = 'slicekit_outbox';
const backlogSize = 20;
const slowMs = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function recordingLogger() {
  const lines: { level: string; msg: string | undefined }[] = [];
  const log = (level: string) => (_obj: unknown, msg?: string) => lines.push({ level, msg });
  const logger: EventsLogger = {
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    debug: log('debug'),
  };
  return { logger, lines };
}

/** Twenty events over three aggregates, committed while no bus ran (a crash or a restart). */
function backlog() {
  return Array.from({ length: backlogSize }, (_, n) => ({
    name: 'ThingCreated',
    payload: { n },
    entity: 'Thing',
    entityId: String(n % 3),
  }));
}

function secondKnex(db: DatabaseHandle): Knex {
  if (db.dialect === 'sqlite') {
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename: db.url },
      useNullAsDefault: true,
    });
  }
  return knexFactory({
    client: db.dialect === 'postgres' ? 'pg' : 'mysql2',
    connection: db.url,
    pool: { min: 0, max: 4 },
  });
}

describeEachDatabase('event bus start with a backlog', (db) => {
  const buses: EventBus<TestEvents>[] = [];
  const newBus = (options: Partial<ConstructorParameters<typeof EventBus>[0]> = {}) => {
    const bus = new EventBus<TestEvents>({ knex: db.knex, pollIntervalMs: 600_000, ...options });
    buses.push(bus);
    return bus;
  };
  const rows = () =>
    db
      .knex(table)
      .select('id', 'status', 'attempts', 'claim_token', 'available_at')
      .orderBy('id') as Promise<
      {
        id: number | string;
        status: string;
        attempts: number | string;
        claim_token: string | null;
        available_at: number | string;
      }[]
    >;

  before(async () => {
    await outboxMigration().up(db.knex);
  });

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.stop()));
    await db.knex(table).del();
  });

  it('start() returns while a slow backlog is still being delivered, then delivers it all once, in recording order', async () => {
    await recordEvents(db.knex, backlog());
    // A short poll interval: polls during the backlog must neither repeat nor reorder deliveries.
    const bus = newBus({ pollIntervalMs: 20 });
    const delivered: OutboxEvent<'ThingCreated', { n: number }>[] = [];
    const newerRecorded = deferred();
    const deliveryBegan = deferred();
    bus.on('ThingCreated', async (event) => {
      deliveryBegan.resolve();
      await sleep(slowMs);
      // The last of the backlog waits until the newer event below is recorded, so that event is
      // always recorded mid-backlog (bounded, so a start() that waits for the backlog fails).
      if (event.payload.n === backlogSize - 1) {
        await Promise.race([newerRecorded.promise, sleep(5000)]);
      }
      delivered.push(event);
    });
    await bus.start();
    const deliveredWhenStarted = delivered.length;
    expect(deliveredWhenStarted).to.be.below(backlogSize);

    // An event committed while the backlog is worked through, about an aggregate that has
    // older pending events: it must come after every one of them. (Recorded once the backlog's
    // claim has committed: an insert racing the claim itself can deadlock on MySQL.)
    await deliveryBegan.promise;
    await db.knex.transaction(async (trx) => {
      await recordEvents(trx, [
        { name: 'ThingCreated', payload: { n: 100 }, entity: 'Thing', entityId: '0' },
      ]);
    });
    newerRecorded.resolve();

    for (let i = 0; i < 200 && delivered.length < backlogSize + 1; i++) {
      await bus.dispatchPending();
      await sleep(20);
    }
    const ids = delivered.map((event) => event.id);
    expect(ids).to.have.length(backlogSize + 1);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(delivered.map((event) => event.payload.n)).to.deep.equal([
      ...Array.from({ length: backlogSize }, (_, n) => n),
      100,
    ]);
    expect(delivered.every((event) => event.attempt === 1)).to.equal(true);
    expect((await rows()).every((row) => row.status === 'dispatched')).to.equal(true);
  });

  it('stop() during the backlog waits for the delivery in flight and leaves the rest due for the next start', async () => {
    await recordEvents(db.knex, backlog());
    const first = newBus();
    const delivered: number[] = [];
    const thirdStarted = deferred();
    let inFlightFinished = false;
    first.on('ThingCreated', async (event) => {
      if (delivered.length === 2) thirdStarted.resolve();
      await sleep(slowMs);
      delivered.push(event.payload.n);
      if (delivered.length === 3) inFlightFinished = true;
    });
    await first.start();
    await thirdStarted.promise;
    await first.stop();
    expect(inFlightFinished).to.equal(true);
    expect(delivered).to.deep.equal([0, 1, 2]);

    const left = await rows();
    expect(left.filter((row) => row.status === 'dispatched')).to.have.length(3);
    const pending = left.filter((row) => row.status === 'pending');
    expect(pending).to.have.length(backlogSize - 3);
    // Released, not leased: due now and not counted as attempted.
    for (const row of pending) {
      expect(row.claim_token).to.equal(null);
      expect(Number(row.available_at)).to.be.at.most(Date.now());
      expect(Number(row.attempts)).to.equal(0);
    }
    await sleep(slowMs * 2);
    expect(delivered).to.have.length(3);

    // The next start delivers the rest at once (the lease is a minute), in order, first attempt.
    const next = newBus();
    const redelivered: OutboxEvent<'ThingCreated', { n: number }>[] = [];
    next.on('ThingCreated', (event) => void redelivered.push(event));
    await next.start();
    await next.dispatchPending();
    expect(redelivered.map((event) => event.payload.n)).to.deep.equal(
      Array.from({ length: backlogSize - 3 }, (_, n) => n + 3),
    );
    expect(redelivered.every((event) => event.attempt === 1)).to.equal(true);
  });

  it('logs a failure while delivering the backlog in the background, and start() still resolves', async () => {
    await recordEvents(db.knex, backlog().slice(0, 3));
    const { logger, lines } = recordingLogger();
    const bus = newBus({ logger });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const renamed = `${table}_away`;
    try {
      // The outbox goes away mid-delivery (a dropped connection would do the same): settling fails.
      bus.on('ThingCreated', async () => {
        if (await db.knex.schema.hasTable(table)) await db.knex.schema.renameTable(table, renamed);
      });
      const outcome = await bus.start().then(
        () => 'resolved',
        () => 'rejected',
      );
      expect(outcome).to.equal('resolved');
      for (let i = 0; i < 100 && !lines.some((line) => line.level === 'error'); i++) {
        await sleep(20);
      }
      await sleep(50);
      // Delivered events are marked in batches: each batch that cannot be marked says so.
      const errors = lines.filter((line) => line.level === 'error').map((line) => line.msg);
      expect(errors).to.have.length.above(0);
      expect(new Set(errors)).to.deep.equal(
        new Set(['events: marking delivered events failed; they will be delivered again']),
      );
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await bus.stop();
      if (await db.knex.schema.hasTable(renamed)) await db.knex.schema.renameTable(renamed, table);
    }
  });

  it('keeps its claim while a slow backlog outlasts the lease, so another process delivers none of it again', async () => {
    // 25 events of 100 ms each take 2.5 s, longer than the 2 s lease the whole batch is claimed
    // with; a second process keeps looking for due events meanwhile.
    const events = Array.from({ length: 25 }, (_, n) => ({ name: 'ThingCreated', payload: { n } }));
    await recordEvents(db.knex, events);
    const other = secondKnex(db);
    try {
      const deliveries: string[] = [];
      const first = newBus({ leaseMs: 2000 });
      // The second process starts looking once the first holds the batch: before that, both
      // claiming at once is a fair split (SKIP LOCKED), not what this test is about.
      let claimed!: () => void;
      const firstClaimed = new Promise<void>((resolve) => (claimed = resolve));
      first.on('ThingCreated', async (event) => {
        claimed();
        await sleep(slowMs);
        deliveries.push(`first ${event.payload.n}`);
      });
      const second = new EventBus<TestEvents>({ knex: other, pollIntervalMs: 600_000 });
      buses.push(second);
      second.on('ThingCreated', (event) => void deliveries.push(`second ${event.payload.n}`));
      await first.start();
      await firstClaimed;
      for (let i = 0; i < 200 && deliveries.length < events.length; i++) {
        await second.dispatchPending();
        await sleep(25);
      }
      await first.dispatchPending();
      expect(deliveries).to.deep.equal(events.map((event) => `first ${event.payload.n}`));
      expect((await rows()).every((row) => row.status === 'dispatched')).to.equal(true);
    } finally {
      await Promise.all(buses.splice(0).map((bus) => bus.stop()));
      await other.destroy();
    }
  });
});
