// Events relayed from the outbox to the real NATS JetStream and RabbitMQ, on each database: every
// committed event published under its UUID with the trace it was recorded in, counted delivered
// only once the broker confirmed it, and a broker outage (a proxy cut or stalled) leaving events
// pending while the subscribers and the app carry on, the backlog draining by itself after.
import { randomBytes } from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect as natsConnect, type NatsConnection } from '@nats-io/transport-node';
import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import amqp, { type ChannelModel, type ConsumeMessage } from 'amqplib';
import { expect } from 'chai';
import {
  brokerHealthCheck,
  createBrokerRelay,
  EVENTS_FAILED_CHANNEL,
  EVENTS_PUBLISHED_CHANNEL,
  EventBus,
  outboxEventIdMigration,
  outboxMigration,
  recordEvents,
  type BrokerSettings,
  type OutboxEvent,
} from '@slicekit/runtime/events';
import { brokerUrls, requireBroker } from '../../support/brokers.js';
import { startCutProxy, type CutProxy } from '../../support/cut-proxy.js';
import { describeEachDatabase, type DatabaseHandle } from '../../support/services.js';
import { startStallProxy, type StallProxy } from '../../support/stall-proxy.js';

interface TestEvents {
  ThingCreated: { n: number };
}

const table = 'slicekit_outbox';
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Records `ThingCreated` events for `ns` in one transaction, inside a sampled trace. */
async function recordInTrace(db: DatabaseHandle, ns: number[]) {
  const active = trace.setSpanContext(context.active(), {
    traceId,
    spanId,
    traceFlags: TraceFlags.SAMPLED,
  });
  await context.with(active, () =>
    db.knex.transaction((trx) =>
      recordEvents(
        trx,
        ns.map((n) => ({ name: 'ThingCreated', payload: { n } })),
      ),
    ),
  );
}

interface Row {
  n: number;
  event_id: string;
  status: string;
  attempts: number;
  handled_at: unknown;
  relayed_at: unknown;
  traceparent: string | null;
  last_error: string | null;
}

async function rows(db: DatabaseHandle): Promise<Row[]> {
  const all = (await db.knex(table).select('*').orderBy('id')) as (Row & { payload: string })[];
  return all.map((row) => ({
    ...row,
    attempts: Number(row.attempts),
    n: (JSON.parse(row.payload) as { n: number }).n,
  }));
}

function listen(name: string) {
  const names: string[] = [];
  const listener = (message: unknown) => names.push((message as { name: string }).name);
  diagnosticsChannel.subscribe(name, listener);
  return { names, close: () => diagnosticsChannel.unsubscribe(name, listener) };
}

const unique = () => `sk${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

describeEachDatabase('events relayed to a broker', (db) => {
  const buses: EventBus<TestEvents>[] = [];
  let handled: OutboxEvent[] = [];

  const newBus = (settings: BrokerSettings, publishTimeoutMs = 2000, maxAttempts = 10) => {
    const relay = createBrokerRelay(settings, { publishTimeoutMs });
    const bus = new EventBus<TestEvents>({
      knex: db.knex,
      relay,
      pollIntervalMs: 100,
      retryDelayMs: 100,
      maxRelayRetryDelayMs: 300,
      maxAttempts,
    });
    bus.on('ThingCreated', (event) => {
      handled.push(event);
    });
    buses.push(bus);
    return bus;
  };

  /**
   * A bus relaying to `settings.url` through a proxy that then goes silent: an event recorded
   * meanwhile is published without the broker's confirmation and its row stays pending. Returns
   * the proxy, still stalled, for the test to resume and close.
   */
  const unconfirmedPublish = async (settings: BrokerSettings): Promise<StallProxy> => {
    const stall = await startStallProxy(settings.url);
    const bus = newBus({ ...settings, url: stall.proxied(settings.url) }, 400);
    await bus.start();
    await until('the relay to connect', async () => bus.relay?.isConnected());
    const failed = listen(EVENTS_FAILED_CHANNEL);
    try {
      stall.stall();
      await recordInTrace(db, [7]);
      await until('the unconfirmed publish', async () => failed.names.length > 0);
      const [row] = await rows(db);
      expect([row?.status, row?.relayed_at]).to.deep.equal(['pending', null]);
      return stall;
    } catch (error) {
      await stall.close();
      throw error;
    } finally {
      failed.close();
    }
  };

  before(async () => {
    await outboxMigration().up(db.knex);
    // Idempotent on a table created now; the migration an existing app runs.
    await outboxEventIdMigration().up(db.knex);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  after(() => {
    context.disable();
    propagation.disable();
  });

  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.stop()));
    await db.knex(table).del();
    handled = [];
  });

  describe('NATS JetStream', () => {
    let nc: NatsConnection;
    let jsm: JetStreamManager;
    let proxy: CutProxy;
    const stream = unique().toUpperCase();
    const subjectPrefix = `${unique()}.events`;
    let settings: BrokerSettings;

    before(async function () {
      await requireBroker(this, 'nats');
      nc = await natsConnect({ servers: new URL(brokerUrls.nats).host });
      jsm = await jetstreamManager(nc);
      proxy = await startCutProxy(brokerUrls.nats);
      settings = { kind: 'nats', url: proxy.proxied(brokerUrls.nats), stream, subjectPrefix };
    });

    after(async () => {
      await jsm?.streams.delete(stream).catch(() => undefined);
      await nc?.close();
      await proxy?.close();
    });

    afterEach(async () => {
      await jsm?.streams.purge(stream).catch(() => undefined);
    });

    async function stored() {
      const info = await jsm.streams.info(stream);
      const messages = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq += 1) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (message) messages.push(message);
      }
      return messages;
    }

    it('relays every committed event under its UUID, with its trace, once JetStream has stored it', async () => {
      const published = listen(EVENTS_PUBLISHED_CHANNEL);
      try {
        const bus = newBus(settings);
        await bus.start();
        await until('the relay to connect', async () => bus.relay?.isConnected());
        await recordInTrace(db, [1, 2]);
        await until('both rows dispatched', async () =>
          (await rows(db)).every((row) => row.status === 'dispatched'),
        );
        const outbox = await rows(db);
        const messages = await stored();
        expect(messages.map((m) => m.subject)).to.deep.equal([
          `${subjectPrefix}.ThingCreated`,
          `${subjectPrefix}.ThingCreated`,
        ]);
        expect(messages.map((m) => m.header.get('Nats-Msg-Id'))).to.deep.equal(
          outbox.map((row) => row.event_id),
        );
        expect(outbox[0]?.event_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
        const traceparent = `00-${traceId}-${spanId}-01`;
        expect(messages.map((m) => m.header.get('traceparent'))).to.deep.equal([
          traceparent,
          traceparent,
        ]);
        const body = messages[0]?.json<Record<string, unknown>>();
        expect(body).to.deep.equal({
          id: outbox[0]?.event_id,
          type: 'ThingCreated',
          occurredOn: body?.occurredOn,
          payload: { n: 1 },
        });
        expect(new Date(String(body?.occurredOn)).toISOString()).to.equal(body?.occurredOn);
        // The in-process subscriber ran beside the relay, once per event, with the same ids.
        expect(handled.map((event) => [event.eventId, event.traceparent])).to.deep.equal(
          outbox.map((row) => [row.event_id, traceparent]),
        );
        expect(published.names).to.deep.equal(['ThingCreated', 'ThingCreated']);
      } finally {
        published.close();
      }
    });

    it('keeps events pending through an outage without using up their attempts, the app and its subscribers carrying on, then drains the backlog', async () => {
      const failed = listen(EVENTS_FAILED_CHANNEL);
      try {
        const bus = newBus(settings);
        await bus.start();
        await until('the relay to connect', async () => bus.relay?.isConnected());
        const check = brokerHealthCheck(bus.relay!);
        await check.check(new AbortController().signal);
        proxy.cut();
        await until('the relay to notice', async () => !bus.relay?.isConnected());
        const down = await check.check(new AbortController().signal).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(String(down)).to.match(/nats broker is not connected/);
        expect(check).to.include({ name: 'broker', critical: false });

        // Writes keep succeeding; subscribers see the events; the broker part waits.
        await recordInTrace(db, [1, 2, 3]);
        await until('the subscribers', async () => handled.length === 3);
        // A few relay retries: waited for, not timed, so a loaded machine cannot outrun them.
        await until('relay retries to fail', async () => failed.names.length >= 2);
        let outbox = await rows(db);
        expect(outbox.map((row) => [row.status, row.attempts, row.relayed_at])).to.deep.equal([
          ['pending', 1, null],
          ['pending', 1, null],
          ['pending', 1, null],
        ]);
        expect(outbox.every((row) => row.handled_at !== null)).to.equal(true);

        proxy.restore();
        await until('the backlog to drain', async () =>
          (await rows(db)).every((row) => row.status === 'dispatched'),
        );
        outbox = await rows(db);
        const ids = (await stored()).map((m) => m.header.get('Nats-Msg-Id'));
        expect(ids).to.deep.equal(outbox.map((row) => row.event_id));
        // Subscribers ran once each: the outage never sent them the events again.
        expect(handled.map((event) => event.eventId)).to.deep.equal(ids);
        expect(outbox.map((row) => row.attempts)).to.deep.equal([1, 1, 1]);
      } finally {
        failed.close();
      }
    });

    it('retries an event NATS refuses (over max_payload) on its own and marks it failed after its attempts, while the events after it are delivered', async () => {
      const failed = listen(EVENTS_FAILED_CHANNEL);
      try {
        const bus = newBus(settings, 2000, 3);
        await bus.start();
        await until('the relay to connect', async () => bus.relay?.isConnected());
        const blob = 'x'.repeat(nc.info!.max_payload + 1024);
        await db.knex.transaction((trx) =>
          recordEvents(trx, [
            { name: 'ThingCreated', payload: { n: 1, blob } },
            { name: 'ThingCreated', payload: { n: 2 } },
          ]),
        );
        await until('the small event dispatched', async () =>
          (await rows(db)).some((row) => row.n === 2 && row.status === 'dispatched'),
        );
        await until('the big event given up', async () =>
          (await rows(db)).some((row) => row.n === 1 && row.status === 'failed'),
        );
        const outbox = await rows(db);
        expect(outbox.map((row) => [row.n, row.status, row.attempts])).to.deep.equal([
          [1, 'failed', 3],
          [2, 'dispatched', 1],
        ]);
        expect(outbox[0]?.last_error).to.match(/max_payload/);
        // The subscribers ran once for each; only the small event reached the stream.
        expect(handled.map((event) => event.eventId)).to.deep.equal(
          outbox.map((row) => row.event_id),
        );
        const ids = (await stored()).map((m) => m.header.get('Nats-Msg-Id'));
        expect(ids).to.deep.equal([outbox[1]?.event_id]);
        expect(failed.names).to.deep.equal(['ThingCreated', 'ThingCreated', 'ThingCreated']);
        expect(bus.relay?.isConnected()).to.equal(true);
      } finally {
        failed.close();
      }
    });

    it('adds the subjects of EVENTS_SUBJECT_PREFIX to an existing stream that does not take them', async () => {
      const other = unique().toUpperCase();
      const prefix = `${unique()}.events`;
      await jsm.streams.add({ name: other, subjects: [`${unique()}.old.>`] });
      try {
        const bus = newBus({ ...settings, stream: other, subjectPrefix: prefix });
        await bus.start();
        await recordInTrace(db, [3]);
        await until('the row dispatched', async () => (await rows(db))[0]?.status === 'dispatched');
        const info = await jsm.streams.info(other);
        expect(info.config.subjects).to.include(`${prefix}.>`);
        expect(info.state.messages).to.equal(1);
      } finally {
        await Promise.all(buses.splice(0).map((bus) => bus.stop()));
        await jsm.streams.delete(other).catch(() => undefined);
      }
    });

    it('gives an event recorded without an id (before the migration) a UUID when first claimed, and relays it under that id', async () => {
      const now = Date.now();
      // As the previous version wrote it, with no event_id nor traceparent.
      await db.knex(table).insert({
        name: 'ThingCreated',
        payload: JSON.stringify({ n: 5 }),
        status: 'pending',
        attempts: 0,
        occurred_at: now,
        available_at: now,
      });
      const bus = newBus(settings);
      await bus.start();
      await until('the row dispatched', async () => (await rows(db))[0]?.status === 'dispatched');
      const [row] = await rows(db);
      expect(row?.event_id).to.match(/^[0-9a-f-]{36}$/);
      const [message] = await stored();
      expect(message?.header.get('Nats-Msg-Id')).to.equal(row?.event_id);
      expect(message?.header.has('traceparent')).to.equal(false);
      expect(handled.map((event) => event.eventId)).to.deep.equal([row?.event_id]);
    });

    it('counts nothing delivered before the PubAck, and JetStream drops the retried copy by its Nats-Msg-Id', async () => {
      const stall = await unconfirmedPublish({ ...settings, url: brokerUrls.nats });
      try {
        // The held publish reaches the stream now, and the relay publishes the event again.
        stall.resume();
        await until('the row dispatched', async () => (await rows(db))[0]?.status === 'dispatched');
        const [row] = await rows(db);
        const messages = await stored();
        expect(messages.map((m) => m.header.get('Nats-Msg-Id'))).to.deep.equal([row?.event_id]);
      } finally {
        await Promise.all(buses.splice(0).map((bus) => bus.stop()));
        await stall.close();
      }
    });
  });

  describe('RabbitMQ', () => {
    let connection: ChannelModel;
    let proxy: CutProxy;
    const exchange = unique();
    let settings: BrokerSettings;
    let received: ConsumeMessage[] = [];

    before(async function () {
      await requireBroker(this, 'amqp');
      connection = await amqp.connect(brokerUrls.amqp);
      const channel = await connection.createChannel();
      await channel.assertExchange(exchange, 'topic', { durable: true });
      // Exclusive: the broker deletes it when this connection closes.
      const { queue } = await channel.assertQueue('', { exclusive: true });
      await channel.bindQueue(queue, exchange, '#');
      await channel.consume(queue, (message) => message && received.push(message), {
        noAck: true,
      });
      proxy = await startCutProxy(brokerUrls.amqp);
      settings = { kind: 'amqp', url: proxy.proxied(brokerUrls.amqp), exchange };
    });

    after(async () => {
      if (connection) {
        const channel = await connection.createChannel();
        await channel.deleteExchange(exchange);
        await connection.close();
      }
      await proxy?.close();
    });

    afterEach(() => {
      received = [];
    });

    it('retries an event RabbitMQ nacks on its own and marks it failed after its attempts, while the events after it are delivered', async () => {
      // A full queue that rejects publishes makes RabbitMQ nack every ThingRefused.
      const channel = await connection.createChannel();
      const { queue } = await channel.assertQueue('', {
        exclusive: true,
        arguments: { 'x-max-length': 0, 'x-overflow': 'reject-publish' },
      });
      await channel.bindQueue(queue, exchange, 'ThingRefused');
      const failed = listen(EVENTS_FAILED_CHANNEL);
      try {
        const bus = newBus(settings, 2000, 3);
        await bus.start();
        await until('the relay to connect', async () => bus.relay?.isConnected());
        await db.knex.transaction((trx) =>
          recordEvents(trx, [
            { name: 'ThingRefused', payload: { n: 1 } },
            { name: 'ThingCreated', payload: { n: 2 } },
          ]),
        );
        await until('the refused event given up', async () =>
          (await rows(db)).some((row) => row.n === 1 && row.status === 'failed'),
        );
        const outbox = await rows(db);
        expect(outbox.map((row) => [row.n, row.status, row.attempts])).to.deep.equal([
          [1, 'failed', 3],
          [2, 'dispatched', 1],
        ]);
        await until('the created event', async () =>
          received.some((m) => m.fields.routingKey === 'ThingCreated'),
        );
        expect(failed.names).to.deep.equal(['ThingRefused', 'ThingRefused', 'ThingRefused']);
        expect(bus.relay?.isConnected()).to.equal(true);
      } finally {
        failed.close();
        await channel.close();
      }
    });

    it('relays every committed event as a persistent message on the topic exchange, routed by name, its UUID the message_id, confirmed before delivered', async () => {
      const bus = newBus(settings);
      await bus.start();
      await until('the relay to connect', async () => bus.relay?.isConnected());
      await recordInTrace(db, [1, 2]);
      await until('both rows dispatched', async () =>
        (await rows(db)).every((row) => row.status === 'dispatched'),
      );
      const outbox = await rows(db);
      await until('both messages', async () => received.length === 2);
      expect(
        received.map((m) => [
          m.fields.routingKey,
          m.properties.messageId,
          m.properties.deliveryMode,
          m.properties.contentType,
          m.properties.headers?.traceparent,
        ]),
      ).to.deep.equal(
        outbox.map((row) => [
          'ThingCreated',
          row.event_id,
          2,
          'application/json',
          `00-${traceId}-${spanId}-01`,
        ]),
      );
      const body = JSON.parse(received[1]!.content.toString()) as Record<string, unknown>;
      expect(body).to.deep.include({ id: outbox[1]?.event_id, type: 'ThingCreated' });
      expect(body.payload).to.deep.equal({ n: 2 });
    });

    it('counts nothing delivered before the publisher confirm; a copy published again carries the same message_id', async () => {
      const stall = await unconfirmedPublish({ ...settings, url: brokerUrls.amqp });
      try {
        stall.resume();
        await until('the row dispatched', async () => (await rows(db))[0]?.status === 'dispatched');
        // The held copy and the one published again (more if a retry was held too): one id.
        await until('both copies', async () => received.length >= 2);
        const [row] = await rows(db);
        expect(new Set(received.map((m) => m.properties.messageId))).to.deep.equal(
          new Set([row?.event_id]),
        );
      } finally {
        await Promise.all(buses.splice(0).map((bus) => bus.stop()));
        await stall.close();
      }
    });

    it('keeps events pending while RabbitMQ is out, reconnects by itself and publishes the backlog', async () => {
      const bus = newBus(settings);
      await bus.start();
      await until('the relay to connect', async () => bus.relay?.isConnected());
      proxy.cut();
      await until('the relay to notice', async () => !bus.relay?.isConnected());
      await recordInTrace(db, [1, 2, 3]);
      await until('the subscribers', async () => handled.length === 3);
      await sleep(500);
      expect((await rows(db)).map((row) => [row.status, row.attempts])).to.deep.equal([
        ['pending', 1],
        ['pending', 1],
        ['pending', 1],
      ]);
      expect(received).to.deep.equal([]);
      proxy.restore();
      await until('the backlog to drain', async () =>
        (await rows(db)).every((row) => row.status === 'dispatched'),
      );
      await until('three messages', async () => received.length === 3);
      expect(received.map((m) => m.properties.messageId)).to.deep.equal(
        (await rows(db)).map((row) => row.event_id),
      );
      expect(handled).to.have.length(3);
    });
  });
});
