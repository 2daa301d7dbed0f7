// Delivery of this process's own events from memory: leased to the running bus when recorded,
// never claimed by another process while the lease holds, redelivered elsewhere once it lapses,
// marked delivered in batches, and polling that backs off while nothing is pending.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import {
  EventBus,
  outboxMigration,
  recordEvents,
  type OutboxEvent,
} from '@slicekit/runtime/events';
import { describeEachDatabase, type DatabaseHandle } from '../../support/services.js';

interface TestEvents {
  ThingCreated: { n: number };
}

const table = 'slicekit_outbox';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** The statements `knex` sends while `work` runs, lower-cased. */
async function statementsDuring(knex: Knex, work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => void seen.push(query.sql.toLowerCase());
  knex.on('query', listener);
  try {
    await work();
  } finally {
    knex.removeListener('query', listener);
  }
  return seen;
}

describeEachDatabase('event bus delivering its own events', (db) => {
  const buses: EventBus<TestEvents>[] = [];
  const newBus = (knex: Knex, options: Partial<ConstructorParameters<typeof EventBus>[0]> = {}) => {
    const bus = new EventBus<TestEvents>({ knex, pollIntervalMs: 600_000, ...options });
    buses.push(bus);
    return bus;
  };
  const record = (n: number) =>
    db.knex.transaction((trx) => recordEvents(trx, [{ name: 'ThingCreated', payload: { n } }]));

  before(async () => {
    await outboxMigration().up(db.knex);
  });

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.stop()));
    await db.knex(table).del();
  });

  it('delivers each commit from memory and marks many in one statement, claiming nothing', async () => {
    const bus = newBus(db.knex, { settleDelayMs: 200 });
    const seen: number[] = [];
    bus.on('ThingCreated', (event) => void seen.push(event.payload.n));
    await bus.start();
    await bus.dispatchPending();
    const statements = await statementsDuring(db.knex, async () => {
      await Promise.all(Array.from({ length: 20 }, (_, n) => record(n)));
      for (let i = 0; i < 100 && seen.length < 20; i++) await sleep(10);
      await sleep(400);
    });
    expect([...seen].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, n) => n));
    const rows = await db.knex(table).select('status', 'claim_token', 'attempts');
    expect(rows.every((row: { status: string }) => row.status === 'dispatched')).to.equal(true);
    expect(rows.every((row: { claim_token: unknown }) => row.claim_token === null)).to.equal(true);
    expect(rows.every((row: { attempts: unknown }) => Number(row.attempts) === 1)).to.equal(true);
    const outbox = statements.filter((sql) => sql.includes(table));
    // One insert per commit; no claim, no read-back; the marks of 20 deliveries in a few updates.
    expect(outbox.filter((sql) => sql.startsWith('insert'))).to.have.length(20);
    expect(outbox.filter((sql) => sql.includes('for update'))).to.deep.equal([]);
    expect(outbox.filter((sql) => sql.startsWith('update')).length).to.be.within(1, 5);
  });

  it('gives several events of one commit their own outbox ids and delivers them in order', async () => {
    const bus = newBus(db.knex);
    const seen: OutboxEvent<'ThingCreated', { n: number }>[] = [];
    bus.on('ThingCreated', (event) => void seen.push(event));
    await bus.start();
    await db.knex.transaction((trx) =>
      recordEvents(
        trx,
        [7, 8, 9].map((n) => ({ name: 'ThingCreated', payload: { n } })),
      ),
    );
    for (let i = 0; i < 100 && seen.length < 3; i++) await sleep(10);
    const rows = (await db.knex(table).select('id', 'event_id', 'payload').orderBy('id')) as {
      id: number | string;
      event_id: string;
      payload: string;
    }[];
    expect(seen.map((event) => [event.id, event.eventId, event.payload])).to.deep.equal(
      rows.map((row) => [Number(row.id), row.event_id, JSON.parse(row.payload)]),
    );
    expect(seen.map((event) => event.payload.n)).to.deep.equal([7, 8, 9]);
  });

  it('records its events leased to it: another process does not claim them while the lease holds', async () => {
    const other = secondKnex(db);
    try {
      const first = newBus(db.knex);
      let resolveRelease!: () => void;
      const release = { promise: new Promise<void>((r) => (resolveRelease = r)) };
      const deliveries: string[] = [];
      first.on('ThingCreated', async (event) => {
        deliveries.push(`first ${event.payload.n}`);
        await release.promise;
      });
      const second = newBus(other);
      second.on('ThingCreated', (event) => void deliveries.push(`second ${event.payload.n}`));
      await first.start();
      await record(1);
      await record(2);
      // The first bus is busy with event 1; event 2 waits in its memory, leased.
      for (let i = 0; i < 100 && deliveries.length === 0; i++) await sleep(10);
      expect(await second.dispatchPending()).to.deep.include({ delivered: 0 });
      resolveRelease();
      await first.dispatchPending();
      expect(deliveries).to.deep.equal(['first 1', 'first 2']);
    } finally {
      await Promise.all(buses.splice(0).map((bus) => bus.stop()));
      await other.destroy();
    }
  });

  it('leaves a committed event to another process once its lease lapses (the recorder hangs or died)', async () => {
    const other = secondKnex(db);
    try {
      const first = newBus(db.knex, { leaseMs: 300 });
      // A process that never finishes its delivery, as one that died after the commit.
      first.on('ThingCreated', () => new Promise<void>(() => undefined));
      await first.start();
      await record(5);
      const second = newBus(other);
      const seen: OutboxEvent<'ThingCreated', { n: number }>[] = [];
      second.on('ThingCreated', (event) => void seen.push(event));
      expect(await second.dispatchPending()).to.deep.include({ delivered: 0 });
      await sleep(350);
      expect(await second.dispatchPending()).to.deep.include({ delivered: 1 });
      expect(seen.map((event) => [event.payload.n, event.attempt])).to.deep.equal([[5, 2]]);
      // Its delivery never ends: stopped without waiting, so its outlet closes.
      buses.splice(buses.indexOf(first), 1);
      void first.stop();
    } finally {
      await Promise.all(buses.splice(0).map((bus) => bus.stop()));
      await other.destroy();
    }
  });

  it('keeps at most twenty batches in memory: later events wait in the outbox, then all arrive once', async () => {
    const bus = newBus(db.knex, { batchSize: 1 });
    let resolveGate!: () => void;
    const gate = new Promise<void>((resolve) => (resolveGate = resolve));
    const seen: number[] = [];
    bus.on('ThingCreated', async (event) => {
      await gate;
      seen.push(event.payload.n);
    });
    await bus.start();
    for (let n = 0; n < 25; n++) await record(n);
    const waiting = (await db.knex(table).whereNull('claim_token').count({ c: '*' })) as {
      c: unknown;
    }[];
    // The first is in flight, twenty wait in memory, the rest are due for a claim.
    expect(Number(waiting[0]!.c)).to.equal(4);
    resolveGate();
    for (let i = 0; i < 300 && seen.length < 25; i++) await sleep(10);
    await bus.dispatchPending();
    expect([...seen].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 25 }, (_, n) => n));
    expect(seen).to.have.length(25);
  });

  it('hands back events committed after stop(), due at once for the next start', async () => {
    const bus = newBus(db.knex);
    await bus.start();
    await bus.dispatchPending();
    let stopped: Promise<void> | undefined;
    await db.knex.transaction(async (trx) => {
      await recordEvents(trx, [{ name: 'ThingCreated', payload: { n: 9 } }]);
      stopped = bus.stop();
    });
    await stopped;
    await sleep(50);
    const [row] = await db.knex(table).select('claim_token', 'available_at', 'attempts', 'status');
    expect(row.status).to.equal('pending');
    expect(row.claim_token).to.equal(null);
    expect(Number(row.available_at)).to.be.at.most(Date.now());
    expect(Number(row.attempts)).to.equal(0);
  });

  it('polls less and less while nothing is pending', async () => {
    const bus = newBus(db.knex, { pollIntervalMs: 20, maxPollIntervalMs: 320 });
    await bus.start();
    await bus.dispatchPending();
    const statements = await statementsDuring(db.knex, async () => {
      await sleep(1000);
    });
    // 20, 40, 80, 160, 320, 320 ms: about six looks in a second instead of fifty.
    expect(statements.length).to.be.within(3, 10);
    // A row recorded where no bus runs is still found, within the longest wait.
    const seen: number[] = [];
    bus.on('ThingCreated', (event) => void seen.push(event.payload.n));
    const elsewhere = secondKnex(db);
    try {
      await recordEvents(elsewhere, [{ name: 'ThingCreated', payload: { n: 3 } }]);
      for (let i = 0; i < 100 && seen.length === 0; i++) await sleep(10);
      expect(seen).to.deep.equal([3]);
    } finally {
      await elsewhere.destroy();
    }
  });
});
