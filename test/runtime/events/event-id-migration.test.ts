// The migration an app created before event ids runs: it adds the event columns to its outbox
// (and its down removes them), and the rows recorded before it get their UUID when delivered.
import { expect } from 'chai';
import {
  EventBus,
  outboxEventIdMigration,
  outboxMigration,
  type OutboxEvent,
} from '@slicekit/runtime/events';
import { describeEachDatabase } from '../../support/services.js';

const table = 'slicekit_outbox';
const eventColumns = ['event_id', 'traceparent', 'handled_at', 'relayed_at'];

describeEachDatabase('the outbox event-id migration', (db) => {
  it('adds the event columns to an older outbox; its rows get a UUID when first delivered', async () => {
    await outboxMigration().up(db.knex);
    // The outbox as an app created it before the event columns existed.
    await outboxEventIdMigration().down(db.knex);
    const has = () => Promise.all(eventColumns.map((c) => db.knex.schema.hasColumn(table, c)));
    expect(await has()).to.deep.equal([false, false, false, false]);
    const now = Date.now();
    await db.knex(table).insert({
      name: 'ThingCreated',
      payload: '{"n":1}',
      status: 'pending',
      attempts: 0,
      occurred_at: now,
      available_at: now,
    });

    await outboxEventIdMigration().up(db.knex);
    expect(await has()).to.deep.equal([true, true, true, true]);
    // Run twice (a new app's table has the columns already): nothing to do, no error.
    await outboxEventIdMigration().up(db.knex);

    const delivered: OutboxEvent[] = [];
    const bus = new EventBus({ knex: db.knex, pollIntervalMs: 600_000 });
    bus.on('ThingCreated', (event) => {
      delivered.push(event);
    });
    await bus.dispatchPending();
    const [row] = (await db.knex(table).select('event_id', 'status')) as {
      event_id: string;
      status: string;
    }[];
    expect(row?.status).to.equal('dispatched');
    expect(row?.event_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-/);
    expect(delivered.map((event) => [event.eventId, event.traceparent])).to.deep.equal([
      [row?.event_id, null],
    ]);
  });
});
