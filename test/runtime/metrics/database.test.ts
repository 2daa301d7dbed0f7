// Gauges read from a real database at scrape time: the connection pool (in use, waiting) and the
// event outbox (pending rows, oldest pending age), and a scrape that still answers when the
// outbox cannot be read.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { outboxMigration, recordEvents } from '@slicekit/runtime/events';
import { startMetrics, type Metrics } from '@slicekit/runtime/metrics';
import { describeEachDatabase, type DatabaseHandle } from '../../support/services.js';
import { freePort, sampleValue, scrape } from '../../support/prometheus-text.js';

const silent = { info() {}, warn() {} };

/** A second Knex on the suite's database with a pool of one connection, easy to exhaust. */
function onePool(db: DatabaseHandle): Knex {
  if (db.dialect === 'sqlite') {
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename: db.url },
      useNullAsDefault: true,
    });
  }
  const client = db.dialect === 'postgres' ? 'pg' : 'mysql2';
  return knexFactory({ client, connection: db.url, pool: { min: 0, max: 1 } });
}

describeEachDatabase('metrics: database gauges', (db) => {
  let knex: Knex;
  const started: Metrics[] = [];
  const start = async (options: { outboxTable?: string; outboxTimeoutMs?: number } = {}) => {
    const metrics = await startMetrics({
      port: await freePort(),
      knex,
      logger: silent,
      processMetrics: false,
      ...options,
    });
    started.push(metrics);
    return metrics;
  };

  before(async () => {
    await outboxMigration().up(db.knex);
    knex = onePool(db);
  });
  after(async () => {
    for (const metrics of started) await metrics.close();
    await knex?.destroy();
  });

  it('reads the pending events and the age of the oldest', async () => {
    const metrics = await start();
    const empty = await scrape(metrics.port!);
    expect(sampleValue(empty, 'slicekit_outbox_pending_events')).to.equal(0);
    expect(sampleValue(empty, 'slicekit_outbox_oldest_pending_age_seconds')).to.equal(0);

    await recordEvents(db.knex, [
      { name: 'ThingCreated', payload: { n: 1 } },
      { name: 'ThingCreated', payload: { n: 2 } },
      { name: 'ThingRenamed', payload: { n: 3 } },
    ]);
    // One recorded an hour ago, one already delivered: two pending, the oldest an hour old.
    const ids = (await db.knex('slicekit_outbox').orderBy('id').pluck('id')) as number[];
    await db
      .knex('slicekit_outbox')
      .where('id', ids[0])
      .update({ occurred_at: Date.now() - 3_600_000 });
    await db.knex('slicekit_outbox').where('id', ids[2]).update({ status: 'dispatched' });

    const e = await scrape(metrics.port!);
    expect(sampleValue(e, 'slicekit_outbox_pending_events')).to.equal(2);
    const age = sampleValue(e, 'slicekit_outbox_oldest_pending_age_seconds');
    expect(age)
      .to.be.at.least(3600)
      .and.below(3600 + 600);
    await db.knex('slicekit_outbox').delete();
  });

  it('reads the pool: connections in use and queries waiting for one', async () => {
    const metrics = await start({ outboxTimeoutMs: 200 });
    await knex.raw('select 1');
    const idle = await scrape(metrics.port!);
    expect(sampleValue(idle, 'db_client_connection_max')).to.equal(1);
    expect(
      sampleValue(idle, 'db_client_connection_count', { db_client_connection_state: 'used' }),
    ).to.equal(0);

    // The one connection held by a transaction, and a query queued behind it.
    const trx = await knex.transaction();
    const queued = knex.raw('select 1').then(() => undefined);
    try {
      const busy = await scrape(metrics.port!);
      expect(
        sampleValue(busy, 'db_client_connection_count', { db_client_connection_state: 'used' }),
      ).to.equal(1);
      expect(sampleValue(busy, 'db_client_connection_pending_requests')).to.equal(1);
      // The outbox query could not get a connection in time: unknown, and the scrape still served.
      expect(Number.isNaN(sampleValue(busy, 'slicekit_outbox_pending_events'))).to.equal(true);
    } finally {
      await trx.commit();
      await queued;
    }
  });

  it('still answers a scrape when the outbox query fails', async () => {
    const metrics = await start({ outboxTable: 'no_such_outbox' });
    const e = await scrape(metrics.port!);
    expect(Number.isNaN(sampleValue(e, 'slicekit_outbox_pending_events'))).to.equal(true);
    expect(Number.isNaN(sampleValue(e, 'slicekit_outbox_oldest_pending_age_seconds'))).to.equal(
      true,
    );
    expect(e.types.get('db_client_connection_count')).to.equal('gauge');
  });
});
