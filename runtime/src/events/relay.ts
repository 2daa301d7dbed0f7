// What the event bus needs from a broker relay (NATS JetStream, RabbitMQ, or your own), the
// message it hands over, and the instrumentation and health check around it.
import diagnosticsChannel from 'node:diagnostics_channel';
import type { OutboxEvent } from './types.js';

/** The JSON body of an event on the broker. */
export interface BrokerEventBody<Name extends string = string, Payload = unknown> {
  /** The event's UUID, also the broker message id: a consumer drops a second copy by it. */
  id: string;
  /** The event name, `ProductCreated`. */
  type: Name;
  /** ISO 8601 time the change was recorded. */
  occurredOn: string;
  payload: Payload;
}

/** An event on its way to the broker: its body and the trace it was recorded in. */
export interface RelayMessage {
  body: BrokerEventBody;
  /** W3C `traceparent` to put in the message headers, or null. */
  traceparent: string | null;
}

/**
 * Thrown by a relay's `publish` when the broker, reachable, refused this one message (too large, a
 * nack, a stream error for it). The bus retries that event alone with its own back-off and counts
 * it against `maxAttempts`; any other rejection is taken as the broker being out, and pauses
 * every publish without using up attempts.
 */
export class EventRefusedError extends Error {
  override name = 'EventRefusedError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A connection to a broker the bus relays every event to. `publish` resolves only once the broker
 * has confirmed the message (stored it); a rejection leaves the event pending for a later try
 * (`EventRefusedError` for a refusal of that message alone, anything else for an outage).
 */
export interface EventRelay {
  /** `nats` or `amqp`: for logs and the health report. */
  readonly kind: string;
  /**
   * Starts connecting, in the background: a broker that is down at start-up must not stop the app,
   * so this never rejects for it, and connects (and declares the stream or exchange) when it can.
   */
  start(): Promise<void>;
  /**
   * Publishes and waits for the broker's confirmation; rejects at once while disconnected, and
   * with `EventRefusedError` when the broker refuses this message while the connection is fine.
   */
  publish(message: RelayMessage): Promise<void>;
  /** True while connected and ready to publish. */
  isConnected(): boolean;
  /** Calls `listener` each time the relay becomes ready again; returns a function removing it. */
  onReady(listener: () => void): () => void;
  /** Closes the connection; publishes in flight settle first. */
  stop(): Promise<void>;
}

/** The relayed message of an outbox event. */
export function relayMessageOf(event: OutboxEvent): RelayMessage {
  return {
    body: {
      id: event.eventId,
      type: event.name,
      occurredOn: event.occurredOn.toISOString(),
      payload: event.payload,
    },
    traceparent: event.traceparent,
  };
}

/** Published with `{ name }` for each event the broker confirmed. */
export const EVENTS_PUBLISHED_CHANNEL = 'slicekit:events:published';
/** Published with `{ name }` for each publish the broker refused or that failed. */
export const EVENTS_FAILED_CHANNEL = 'slicekit:events:failed';

const published = diagnosticsChannel.channel(EVENTS_PUBLISHED_CHANNEL);
const failed = diagnosticsChannel.channel(EVENTS_FAILED_CHANNEL);

/** Reports one publish outcome to whoever listens (the app's metrics); free when nobody does. */
export function reportPublish(name: string, ok: boolean): void {
  const channel = ok ? published : failed;
  if (channel.hasSubscribers) channel.publish({ name });
}

/** A readiness check, shaped as `@slicekit/runtime/health`'s `HealthCheck`. */
export interface BrokerHealthCheck {
  name: string;
  critical: boolean;
  check(signal: AbortSignal): Promise<void>;
}

/**
 * The `broker` check of a relay: down while the relay is not connected. Not critical: the outbox
 * holds the events through an outage, so the app stays ready and the report shows the broker down.
 */
export function brokerHealthCheck(relay: EventRelay): BrokerHealthCheck {
  return {
    name: 'broker',
    critical: false,
    check() {
      return relay.isConnected()
        ? Promise.resolve()
        : Promise.reject(new Error(`the ${relay.kind} broker is not connected`));
    },
  };
}
