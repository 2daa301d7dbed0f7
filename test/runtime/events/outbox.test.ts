// The transactional outbox on real databases: after-commit delivery, restart recovery, retries,
// give-up, leases, and two processes sharing one outbox.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import {
  EventBus,
  outboxMigration,
  recordEvents,
  type EventsLogger,
  type OutboxEvent,
} from '@slicekit/runtime/events';
import { claimDue } from '@slicekit/runtime/internal';
import { describeEachDatabase, type DatabaseHandle } from '../../support/services.js';

// A plain interface, as an app writes it: no index signature needed.
interface TestEvents {
  ThingCreated: { n: number };
  ThingRenamed: { name: string };
}

const table = 'slicekit_outbox';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachDatabase('event outbox', (db) => {
  const buses: EventBus<TestEvents>[] = [];
  const newBus = (options: Partial<ConstructorParameters<typeof EventBus>[0]> = {}) => {
    const bus = new EventBus<TestEvents>({ knex: db.knex, pollIntervalMs: 600_000, ...options });
    buses.push(bus);
    return bus;
  };

  before(async () => {
    await outboxMigration().up(db.knex);
    await db.knex.schema.createTable('things', (t) => {
      t.integer('n').primary();
    });
  });

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.stop()));
    await db.knex(table).del();
    await db.knex('things').del();
  });

  it('delivers to the typed subscriber right after commit, when the row is visible', async () => {
    const bus = newBus();
    const seen = deferred<{ event: OutboxEvent<'ThingCreated', { n: number }>; visible: number }>();
    bus.on('ThingCreated', async (event) => {
      const visible = await db.knex('things').where({ n: event.payload.n });
      seen.resolve({ event, visible: visible.length });
    });
    await bus.start();
    await db.knex.transaction(async (trx) => {
      await trx('things').insert({ n: 1 });
      await recordEvents(trx, [
        { name: 'ThingCreated', payload: { n: 1 }, entity: 'Thing', entityId: '1' },
      ]);
    });
    // The poll interval is ten minutes: only the after-commit wake-up can deliver this.
    const { event, visible } = await seen.promise;
    expect(visible).to.equal(1);
    expect(event).to.include({ name: 'ThingCreated', entity: 'Thing', entityId: '1', attempt: 1 });
    expect(event.payload).to.deep.equal({ n: 1 });
    expect(event.occurredOn).to.be.instanceOf(Date);
  });

  it('delivers events of a nested transaction once the outer one commits', async () => {
    const bus = newBus();
    const seen = deferred<number>();
    bus.on('ThingCreated', (event) => seen.resolve(event.payload.n));
    await bus.start();
    await db.knex.transaction(async (outer) => {
      await outer.transaction(async (inner) => {
        await recordEvents(inner, [{ name: 'ThingCreated', payload: { n: 7 } }]);
      });
    });
    expect(await seen.promise).to.equal(7);
  });

  it('stores nothing when the transaction rolls back', async () => {
    const bus = newBus();
    const delivered: unknown[] = [];
    bus.on('ThingCreated', (event) => void delivered.push(event));
    const failure = await db.knex
      .transaction(async (trx) => {
        await recordEvents(trx, [{ name: 'ThingCreated', payload: { n: 2 } }]);
        throw new Error('handler failed');
      })
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(failure).to.equal('handler failed');
    expect(await bus.dispatchPending()).to.deep.equal({
      delivered: 0,
      retried: 0,
      failed: 0,
      awaitingBroker: 0,
    });
    expect(await db.knex(table).count({ c: '*' })).to.satisfy(
      (r: { c: unknown }[]) => Number(r[0]!.c) === 0,
    );
    expect(delivered).to.deep.equal([]);
  });

  it('delivers events committed while no dispatcher ran, in order, on the next start', async () => {
    await db.knex.transaction(async (trx) => {
      await recordEvents(trx, [
        { name: 'ThingCreated', payload: { n: 1 } },
        { name: 'ThingRenamed', payload: { name: 'b' } },
        { name: 'ThingCreated', payload: { n: 3 } },
      ]);
    });
    const bus = newBus();
    const order: string[] = [];
    bus.on('ThingCreated', (e) => void order.push(`created ${e.payload.n}`));
    bus.on('ThingRenamed', (e) => void order.push(`renamed ${e.payload.name}`));
    await bus.start();
    // start() delivers them in the background; joining its pass waits for them.
    await bus.dispatchPending();
    expect(order).to.deep.equal(['created 1', 'renamed b', 'created 3']);
    const statuses = await db.knex(table).distinct('status');
    expect(statuses.map((r: { status: string }) => r.status)).to.deep.equal(['dispatched']);
  });

  it('keeps an event whose subscriber throws and redelivers it until it succeeds', async () => {
    const bus = newBus({ retryDelayMs: 0 });
    const attempts: number[] = [];
    bus.on('ThingCreated', (event) => {
      attempts.push(event.attempt);
      if (event.attempt < 3) throw new Error(`boom ${event.attempt}`);
    });
    await recordEvents(db.knex, [{ name: 'ThingCreated', payload: { n: 4 } }]);
    expect(await bus.dispatchPending()).to.deep.equal({
      delivered: 0,
      retried: 1,
      failed: 0,
      awaitingBroker: 0,
    });
    const [pending] = await db.knex(table).select('status', 'attempts', 'last_error');
    expect(pending).to.deep.include({ status: 'pending', last_error: 'boom 1' });
    expect(Number(pending.attempts)).to.equal(1);
    await bus.dispatchPending();
    expect(await bus.dispatchPending()).to.deep.equal({
      delivered: 1,
      retried: 0,
      failed: 0,
      awaitingBroker: 0,
    });
    expect(attempts).to.deep.equal([1, 2, 3]);
  });

  it('backs off before retrying: an event that just failed is not due again at once', async () => {
    const bus = newBus({ retryDelayMs: 60_000 });
    let calls = 0;
    bus.on('ThingCreated', () => {
      calls += 1;
      throw new Error('down');
    });
    await recordEvents(db.knex, [{ name: 'ThingCreated', payload: { n: 5 } }]);
    const before = Date.now();
    await bus.dispatchPending();
    await bus.dispatchPending();
    expect(calls).to.equal(1);
    const [row] = await db.knex(table).select('available_at');
    expect(Number(row.available_at)).to.be.at.least(before + 60_000);
  });

  it('gives up after maxAttempts, marks the event failed and logs an error', async () => {
    const { logger, lines } = recordingLogger();
    const bus = newBus({ retryDelayMs: 0, maxAttempts: 2, logger });
    let calls = 0;
    bus.on('ThingCreated', () => {
      calls += 1;
      throw new Error('always');
    });
    await recordEvents(db.knex, [{ name: 'ThingCreated', payload: { n: 6 } }]);
    await bus.dispatchPending();
    expect(await bus.dispatchPending()).to.deep.equal({
      delivered: 0,
      retried: 0,
      failed: 1,
      awaitingBroker: 0,
    });
    await bus.dispatchPending();
    expect(calls).to.equal(2);
    const [row] = await db.knex(table).select('status');
    expect(row.status).to.equal('failed');
    expect(lines.filter((l) => l.level === 'error').map((l) => l.msg)).to.deep.equal([
      'events: ThingCreated failed 2 times, giving up',
    ]);
  });

  it('redelivers an event whose claim expired (a process died mid-delivery), at least once', async () => {
    await recordEvents(db.knex, [{ name: 'ThingCreated', payload: { n: 8 } }]);
    // A process claims the event with a short lease and dies before settling it.
    const dead = await claimDue(db.knex, { table, now: Date.now(), leaseMs: 1, batchSize: 10 });
    expect(dead.rows).to.have.length(1);
    await sleep(20);
    const bus = newBus();
    const seen: OutboxEvent[] = [];
    bus.on('ThingCreated', (e) => void seen.push(e));
    await bus.dispatchPending();
    expect(seen.map((e) => e.attempt)).to.deep.equal([2]);
  });

  it('does not deliver an event twice when two processes dispatch the same outbox', async () => {
    const other = secondKnex(db);
    try {
      const events = Array.from({ length: 120 }, (_, n) => ({
        name: 'ThingCreated',
        payload: { n },
      }));
      await recordEvents(db.knex, events);
      const delivered: number[] = [];
      const a = newBus({ batchSize: 10 });
      const b = new EventBus<TestEvents>({ knex: other, batchSize: 10, pollIntervalMs: 600_000 });
      buses.push(b);
      for (const bus of [a, b]) {
        bus.on('ThingCreated', async (e) => {
          delivered.push(e.payload.n);
          await sleep(0);
        });
      }
      const [ra, rb] = await Promise.all([a.dispatchPending(), b.dispatchPending()]);
      expect(ra.delivered + rb.delivered).to.equal(120);
      expect(new Set(delivered).size).to.equal(120);
      expect(delivered).to.have.length(120);
    } finally {
      await Promise.all(buses.splice(0).map((bus) => bus.stop()));
      await other.destroy();
    }
  });

  it('fails start() when the outbox table does not exist (migration missing)', async () => {
    const bus = newBus({ table: 'no_such_outbox' });
    const outcome = await bus.start().then(
      () => 'started',
      () => 'rejected',
    );
    expect(outcome).to.equal('rejected');
  });

  it('marks an event nobody subscribes to as dispatched', async () => {
    await recordEvents(db.knex, [{ name: 'ThingRenamed', payload: { name: 'x' } }]);
    expect(await newBus().dispatchPending()).to.deep.equal({
      delivered: 1,
      retried: 0,
      failed: 0,
      awaitingBroker: 0,
    });
  });
});
