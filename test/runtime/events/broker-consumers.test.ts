// The consumer helpers another Node service uses to read an app's events from the real NATS
// JetStream and RabbitMQ, each event id handled once; and the strict broker settings.
import { randomBytes, randomUUID } from 'node:crypto';
import { headers, connect as natsConnect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { expect } from 'chai';
import { ConfigError } from '@slicekit/runtime/config';
import {
  createBrokerRelay,
  eventsBrokerFromEnv,
  type BrokerEventBody,
  type EventRelay,
} from '@slicekit/runtime/events';
import { consumeAmqpEvents } from '@slicekit/runtime/events/amqp';
import { consumeNatsEvents } from '@slicekit/runtime/events/nats';
import amqp from 'amqplib';
import { brokerUrls, requireBroker } from '../../support/brokers.js';

const unique = () => `sk${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, probe: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function event(n: number): BrokerEventBody {
  return {
    id: randomUUID(),
    type: 'ThingCreated',
    occurredOn: new Date().toISOString(),
    payload: { n },
  };
}

describe('consuming relayed events from NATS JetStream', () => {
  let nc: NatsConnection;
  const stream = unique().toUpperCase();
  const subjectPrefix = unique();

  before(async function () {
    await requireBroker(this, 'nats');
    nc = await natsConnect({ servers: new URL(brokerUrls.nats).host });
  });

  after(async () => {
    if (!nc) return;
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  it('calls the handler once per event id, acknowledging duplicates, and retries one that threw', async () => {
    const seen: { id: string; n: unknown; traceparent: string | null }[] = [];
    let failOnce = true;
    const consumer = await consumeNatsEvents({
      connection: brokerUrls.nats,
      durable: unique(),
      stream,
      subjectPrefix,
      retryDelayMs: 50,
      handler(body, meta) {
        if ((body.payload as { n: number }).n === 3 && failOnce) {
          failOnce = false;
          throw new Error('not yet');
        }
        seen.push({
          id: body.id,
          n: (body.payload as { n: number }).n,
          traceparent: meta.traceparent,
        });
      },
    });
    try {
      const js = jetstream(nc);
      const [one, two, three] = [event(1), event(2), event(3)];
      const h = headers();
      h.set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
      // The second copy of `one` carries no Nats-Msg-Id, so JetStream keeps it: the helper drops it.
      await js.publish(`${subjectPrefix}.ThingCreated`, JSON.stringify(one), {
        msgID: one.id,
        headers: h,
      });
      await js.publish(`${subjectPrefix}.ThingCreated`, JSON.stringify(one));
      await js.publish(`${subjectPrefix}.ThingCreated`, JSON.stringify(two), { msgID: two.id });
      await js.publish(`${subjectPrefix}.ThingCreated`, JSON.stringify(three), { msgID: three.id });
      await until('three events handled', () => seen.length >= 3);
      await sleep(200);
      expect(seen.map((s) => s.n)).to.deep.equal([1, 2, 3]);
      expect(seen[0]?.traceparent).to.equal(
        '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      );
    } finally {
      await consumer.stop();
    }
  });
});

describe('consuming relayed events from RabbitMQ', () => {
  const exchange = unique();
  const queue = unique();

  before(async function () {
    await requireBroker(this, 'amqp');
  });

  after(async () => {
    const connection = await amqp.connect(brokerUrls.amqp).catch(() => undefined);
    if (!connection) return;
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
    await channel.deleteExchange(exchange);
    await connection.close();
  });

  it('binds a durable queue to the exchange and calls the handler once per message_id', async () => {
    const seen: unknown[] = [];
    const consumer = await consumeAmqpEvents({
      url: brokerUrls.amqp,
      queue,
      exchange,
      types: ['ThingCreated'],
      handler: (body) => {
        seen.push(body.payload);
      },
    });
    let relay: EventRelay | undefined;
    try {
      relay = createBrokerRelay({ kind: 'amqp', url: brokerUrls.amqp, exchange });
      await relay.start();
      await until('the relay to connect', () => relay?.isConnected() === true);
      const one = event(1);
      // A relay that lost the confirmation publishes the same event again: same message_id.
      await relay.publish({ body: one, traceparent: null });
      await relay.publish({ body: one, traceparent: null });
      await relay.publish({ body: event(2), traceparent: null });
      await relay.publish({ body: { ...event(9), type: 'OtherThing' }, traceparent: null });
      await until('two events handled', () => seen.length >= 2);
      await sleep(200);
      expect(seen).to.deep.equal([{ n: 1 }, { n: 2 }]);
    } finally {
      await relay?.stop();
      await consumer.stop();
    }
  });
});

describe('broker settings', () => {
  it('reads nothing without EVENTS_BROKER_URL, and the defaults around a URL', () => {
    expect(eventsBrokerFromEnv({})).to.equal(undefined);
    expect(eventsBrokerFromEnv({ EVENTS_BROKER_URL: 'nats://nats:4222' })).to.deep.equal({
      kind: 'nats',
      url: 'nats://nats:4222',
      subjectPrefix: 'events',
      stream: 'EVENTS',
      exchange: 'events',
    });
    expect(eventsBrokerFromEnv({ EVENTS_BROKER_URL: 'amqps://u:p@mq/vhost' })?.kind).to.equal(
      'amqp',
    );
  });

  it('refuses another scheme or a bad name, without showing the password', () => {
    const refused = (env: Record<string, string>) => {
      try {
        eventsBrokerFromEnv(env);
      } catch (error) {
        expect(error).to.be.instanceOf(ConfigError);
        return (error as ConfigError).message;
      }
      throw new Error('accepted');
    };
    const message = refused({ EVENTS_BROKER_URL: 'kafka://user:s3cret@broker:9092' });
    expect(message).to.include('EVENTS_BROKER_URL').and.not.include('s3cret');
    expect(refused({ EVENTS_BROKER_URL: 'nats://' })).to.include('EVENTS_BROKER_URL');
    expect(refused({ EVENTS_SUBJECT_PREFIX: 'events.>' })).to.include('EVENTS_SUBJECT_PREFIX');
    expect(refused({ EVENTS_STREAM: 'my.stream' })).to.include('EVENTS_STREAM');
    expect(refused({ EVENTS_EXCHANGE: 'amq.topic' })).to.include('EVENTS_EXCHANGE');
  });
});
