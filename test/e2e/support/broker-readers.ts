// What a consumer in another service sees of an app's events, read straight from the shared
// brokers with their official clients: every message of a JetStream stream, or every message a
// RabbitMQ queue bound to the app's exchange received. Names are the test's own, removed after.
import { connect as connectNats, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import amqp from 'amqplib';
import { brokerUrls, type BrokerName } from '../../support/brokers.js';
import { uniqueName } from '../../support/services.js';

export interface BrokerMessage {
  /** The message id the broker carries (`Nats-Msg-Id`, the AMQP `message_id`). */
  messageId: string | undefined;
  body: { id: string; type: string; occurredOn: string; payload: Record<string, unknown> };
}

export interface EventReader {
  /** The app's settings that send its events where this reader looks. */
  readonly settings: Record<string, string>;
  /** Every message received so far, in order. */
  messages(): Promise<BrokerMessage[]>;
  /** Deletes what the reader (and the app) created on the broker, and disconnects. */
  close(): Promise<void>;
}

/** A JetStream stream and subject prefix of this run's own; the app creates the stream. */
async function natsReader(): Promise<EventReader> {
  const stream = uniqueName('SK').toUpperCase();
  const prefix = uniqueName('events');
  const nc: NatsConnection = await connectNats({
    servers: brokerUrls.nats.replace(/^nats:\/\//, ''),
  });
  const jsm: JetStreamManager = await jetstreamManager(nc);
  const read: BrokerMessage[] = [];
  return {
    settings: { EVENTS_STREAM: stream, EVENTS_SUBJECT_PREFIX: prefix },
    async messages() {
      const info = await jsm.streams.info(stream).catch(() => undefined);
      // Message by message from the last one read: a stream never renumbers its messages.
      for (let seq = read.length + 1; info && seq <= info.state.last_seq; seq++) {
        const message = await jsm.streams.getMessage(stream, { seq });
        if (!message) throw new Error(`stream ${stream} has no message ${seq}`);
        read.push({
          messageId: message.header?.get('Nats-Msg-Id') || undefined,
          body: message.json(),
        });
      }
      return [...read];
    },
    async close() {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    },
  };
}

/** A topic exchange of this run's own, declared as the app declares it, and a queue bound to it. */
async function amqpReader(): Promise<EventReader> {
  const exchange = uniqueName('events');
  const connection = await amqp.connect(brokerUrls.amqp);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  // Exclusive: the broker deletes the queue when this connection closes.
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, '#');
  const read: BrokerMessage[] = [];
  await channel.consume(
    queue,
    (message) => {
      if (!message) return;
      read.push({
        messageId: (message.properties.messageId as string | undefined) ?? undefined,
        body: JSON.parse(message.content.toString('utf8')) as BrokerMessage['body'],
      });
    },
    { noAck: true },
  );
  return {
    settings: { EVENTS_EXCHANGE: exchange },
    messages: () => Promise.resolve([...read]),
    async close() {
      await channel.deleteExchange(exchange).catch(() => undefined);
      await connection.close();
    },
  };
}

/** A reader of the events an app sends to `kind`. */
export function eventReader(kind: BrokerName): Promise<EventReader> {
  return kind === 'nats' ? natsReader() : amqpReader();
}
