// @slicekit/runtime/events/amqp: consume an app's events from RabbitMQ in another Node service,
// each event id handled once (docs/operations.md#events-to-a-broker). Needs the optional peer
// amqplib.
import { connect, type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { safeError } from '../../logging/index.js';
import type { BrokerEventBody } from '../relay.js';
import type { EventsLogger } from '../types.js';
import { withHeartbeat } from './amqp-relay.js';
import { pause, RecentIds, type ConsumedMeta, type EventConsumer } from './recent-ids.js';
import { brokerDefaults } from './names.js';

export { AmqpRelay } from './amqp-relay.js';
export { RecentIds, type ConsumedMeta, type EventConsumer } from './recent-ids.js';

export interface AmqpConsumerOptions {
  /** An `amqp://` URL; the helper connects, reconnects after a loss, and closes on `stop()`. */
  url: string;
  /**
   * The durable queue bound to the exchange: it keeps events while the consumer is away, and
   * several processes reading one queue share the work.
   */
  queue: string;
  /** The app's EVENTS_EXCHANGE. @default 'events' */
  exchange?: string;
  /** Event names to receive (routing keys; `#` and `*` patterns work). @default ['#'] */
  types?: readonly string[];
  /** Called once per event id (within the window); the message is acknowledged after it returns. */
  handler: (event: BrokerEventBody, meta: ConsumedMeta) => void | Promise<void>;
  /** How many recent ids are remembered to drop a second copy. @default 10000 */
  dedupeWindow?: number;
  /** Unacknowledged messages the broker sends ahead. @default 16 */
  prefetch?: number;
  /** Delay before a message whose handler threw is put back on the queue. @default 1000 */
  retryDelayMs?: number;
  logger?: EventsLogger;
}

/**
 * Starts consuming: declares the exchange and the durable queue, binds it for `types`, then calls
 * `handler` for each event, one at a time, acknowledging after it returns. A handler that throws
 * has the message requeued after `retryDelayMs`; a copy of an event already handled (the relay
 * published it again after a lost confirmation) is acknowledged without calling it.
 *
 * @example
 * const consumer = await consumeAmqpEvents({
 *   url: 'amqp://rabbitmq',
 *   queue: 'billing.orders',
 *   types: ['OrderPlaced'],
 *   handler: async (event) => billing.open(event.payload),
 * });
 * // on shutdown: await consumer.stop();
 */
export async function consumeAmqpEvents(options: AmqpConsumerOptions): Promise<EventConsumer> {
  const exchange = options.exchange ?? brokerDefaults.exchange;
  const seen = new RecentIds(options.dedupeWindow);
  const retryMs = options.retryDelayMs ?? 1000;
  let stopped = false;
  let connection: ChannelModel | undefined;
  let consuming: { channel: Channel; tag: string } | undefined;
  // One message at a time, in delivery order, whatever the prefetch.
  let queue: Promise<void> = Promise.resolve();

  const handle = async (channel: Channel, message: ConsumeMessage) => {
    let body: BrokerEventBody;
    try {
      body = JSON.parse(message.content.toString('utf8')) as BrokerEventBody;
    } catch (error) {
      options.logger?.error({ err: safeError(error) }, 'events: dropping an unreadable message');
      channel.nack(message, false, false);
      return;
    }
    const id = String(message.properties.messageId ?? body.id);
    if (seen.has(id)) {
      channel.ack(message);
      return;
    }
    const traceparent = message.properties.headers?.traceparent as unknown;
    try {
      await options.handler(body, {
        traceparent: typeof traceparent === 'string' ? traceparent : null,
        redelivered: message.fields.redelivered,
      });
    } catch (error) {
      options.logger?.warn(
        { err: safeError(error), eventId: id, event: body.type },
        'events: the handler failed; the event will be delivered again',
      );
      await pause(retryMs);
      channel.nack(message, false, true);
      return;
    }
    seen.add(id);
    channel.ack(message);
  };

  const open = async () => {
    const opened = await connect(withHeartbeat(options.url));
    opened.on('error', () => undefined);
    try {
      const channel = await opened.createChannel();
      channel.on('error', () => undefined);
      await channel.assertExchange(exchange, 'topic', { durable: true });
      await channel.assertQueue(options.queue, { durable: true });
      for (const type of options.types ?? ['#']) {
        await channel.bindQueue(options.queue, exchange, type);
      }
      await channel.prefetch(options.prefetch ?? 16);
      const { consumerTag } = await channel.consume(options.queue, (message) => {
        if (!message || stopped) return;
        queue = queue.then(() => handle(channel, message)).catch(() => undefined);
      });
      consuming = { channel, tag: consumerTag };
      opened.on('close', () => {
        if (connection === opened) connection = undefined;
        if (!stopped) void reopen();
      });
      connection = opened;
    } catch (error) {
      await opened.close().catch(() => undefined);
      throw error;
    }
  };

  const reopen = async () => {
    let delay = 250;
    while (!stopped && !connection) {
      await pause(delay);
      delay = Math.min(delay * 2, 5000);
      try {
        await open();
      } catch (error) {
        options.logger?.warn({ err: safeError(error) }, 'events: cannot reach RabbitMQ; retrying');
      }
    }
  };

  await open();
  return {
    async stop() {
      stopped = true;
      // No new messages; those sent ahead and not handled go back to the queue on close.
      await consuming?.channel.cancel(consuming.tag).catch(() => undefined);
      await queue;
      await connection?.close().catch(() => undefined);
    },
  };
}
