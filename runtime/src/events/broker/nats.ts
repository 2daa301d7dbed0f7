// @slicekit/runtime/events/nats: consume an app's events from NATS JetStream in another Node
// service, each event id handled once (docs/operations.md#events-to-a-broker). Needs the
// optional peers @nats-io/transport-node and @nats-io/jetstream.
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { safeError } from '../../logging/index.js';
import type { BrokerEventBody } from '../relay.js';
import type { EventsLogger } from '../types.js';
import { ensureStream, natsConnectOptions } from './nats-relay.js';
import { RecentIds, type ConsumedMeta, type EventConsumer } from './recent-ids.js';
import { brokerDefaults } from './names.js';

export { NatsRelay } from './nats-relay.js';
export { RecentIds, type ConsumedMeta, type EventConsumer } from './recent-ids.js';

export interface NatsConsumerOptions {
  /** A `nats://` URL (the helper opens and closes the connection), or a connection of yours. */
  connection: string | NatsConnection;
  /**
   * The durable consumer's name: it remembers what was acknowledged across restarts, and several
   * processes using one name share the work.
   */
  durable: string;
  /** The app's EVENTS_STREAM. @default 'EVENTS' */
  stream?: string;
  /** The app's EVENTS_SUBJECT_PREFIX. @default 'events' */
  subjectPrefix?: string;
  /** Event names to receive. @default every event of the stream */
  types?: readonly string[];
  /** Called once per event id (within the window); the message is acknowledged after it returns. */
  handler: (event: BrokerEventBody, meta: ConsumedMeta) => void | Promise<void>;
  /** How many recent ids are remembered to drop a second copy. @default 10000 */
  dedupeWindow?: number;
  /** Delay before a message whose handler threw is delivered again. @default 1000 */
  retryDelayMs?: number;
  logger?: EventsLogger;
}

/**
 * Starts consuming: creates (or reuses) the durable consumer on the stream, then calls `handler`
 * for each event, one at a time, acknowledging after it returns. A handler that throws gets the
 * message again after `retryDelayMs`; a copy of an event already handled (a relay retry JetStream
 * did not drop, or a redelivery after a lost ack) is acknowledged without calling it.
 *
 * @example
 * const consumer = await consumeNatsEvents({
 *   connection: 'nats://nats:4222',
 *   durable: 'billing',
 *   types: ['OrderPlaced'],
 *   handler: async (event) => billing.open(event.payload),
 * });
 * // on shutdown: await consumer.stop();
 */
export async function consumeNatsEvents(options: NatsConsumerOptions): Promise<EventConsumer> {
  const stream = options.stream ?? brokerDefaults.stream;
  const prefix = options.subjectPrefix ?? brokerDefaults.subjectPrefix;
  const seen = new RecentIds(options.dedupeWindow);
  const owned = typeof options.connection === 'string';
  const nc =
    typeof options.connection === 'string'
      ? await connect({
          ...natsConnectOptions(options.connection),
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
        })
      : options.connection;
  try {
    await ensureStream(nc, stream, prefix);
    const jsm = await jetstreamManager(nc);
    const subjects = (options.types ?? []).map((type) => `${prefix}.${type}`);
    await jsm.consumers.add(stream, {
      durable_name: options.durable,
      ack_policy: AckPolicy.Explicit,
      ...(subjects.length === 1 ? { filter_subject: subjects[0] } : {}),
      ...(subjects.length > 1 ? { filter_subjects: subjects } : {}),
    });
  } catch (error) {
    if (owned) await nc.close();
    throw error;
  }
  const consumer = await jetstream(nc).consumers.get(stream, options.durable);
  const messages = await consumer.consume();
  const retryMs = options.retryDelayMs ?? 1000;

  const loop = (async () => {
    for await (const message of messages) {
      let body: BrokerEventBody;
      try {
        body = message.json<BrokerEventBody>();
      } catch (error) {
        // Not an event this helper can read: never handled, so ended rather than redelivered.
        options.logger?.error({ err: safeError(error) }, 'events: dropping an unreadable message');
        message.term();
        continue;
      }
      const id = message.headers?.get('Nats-Msg-Id') || body.id;
      if (seen.has(id)) {
        message.ack();
        continue;
      }
      try {
        await options.handler(body, {
          traceparent: message.headers?.get('traceparent') || null,
          redelivered: message.redelivered,
        });
      } catch (error) {
        options.logger?.warn(
          { err: safeError(error), eventId: id, event: body.type },
          'events: the handler failed; the event will be delivered again',
        );
        message.nak(retryMs);
        continue;
      }
      seen.add(id);
      message.ack();
    }
  })();

  return {
    async stop() {
      await messages.close();
      await loop.catch(() => undefined);
      if (owned) await nc.drain();
    },
  };
}
