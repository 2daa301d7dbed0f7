// Shapes of events: what a slice records, what a subscriber receives, and the bus's options.

/** An event a change raises, before it is stored. `name` is the typed name (`ProductCreated`). */
export interface DomainEvent<Name extends string = string, Payload = unknown> {
  name: Name;
  /** JSON-serialisable data; dates become ISO strings. */
  payload: Payload;
  /** Entity type the event is about, for example `Product`. @default undefined */
  entity?: string;
  /** Id of the row the event is about, as a string. @default undefined */
  entityId?: string;
}

/** An event as delivered to subscribers, read back from the outbox. */
export interface OutboxEvent<Name extends string = string, Payload = unknown> {
  /**
   * Outbox row id: increasing within one database, so in-process subscribers can use it to ignore
   * a redelivery. It repeats across databases; `eventId` is the id to use beyond this one.
   */
  id: number;
  /** The event's globally unique id (a UUID), the message id of the event relayed to a broker. */
  eventId: string;
  /** The W3C `traceparent` of the trace the event was recorded in, or null (no tracing). */
  traceparent: string | null;
  name: Name;
  payload: Payload;
  entity: string | null;
  entityId: string | null;
  /** When the change was recorded (the recording process's clock). */
  occurredOn: Date;
  /** Delivery attempts so far, this one included (1 on the first delivery). */
  attempt: number;
}

/** What one `dispatchPending()` call did. */
export interface DispatchSummary {
  /** Events every subscriber accepted. */
  delivered: number;
  /** Events a subscriber threw on or the broker refused, scheduled for another attempt. */
  retried: number;
  /** Events that used their last attempt and are now `failed`. */
  failed: number;
  /** Events left pending for the broker (it is out), attempts not used up. */
  awaitingBroker: number;
}

/**
 * The map an app declares from event names to payload types, e.g. `{ ProductCreated: {...} }`;
 * any interface works as the bus's type argument, this is only the untyped default.
 */
export type EventMap = Record<string, unknown>;

/** A pino-compatible logger. */
export interface EventsLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  debug(obj: unknown, msg?: string): void;
}

/** Row states of the outbox table. */
export const OutboxStatus = {
  /** Committed, waiting for (re)delivery once `available_at` has passed. */
  Pending: 'pending',
  /** Every subscriber returned without throwing (and, with a relay, the broker confirmed it). */
  Dispatched: 'dispatched',
  /** Gave up after `maxAttempts`; kept for inspection, never retried automatically. */
  Failed: 'failed',
} as const;
export type OutboxStatus = (typeof OutboxStatus)[keyof typeof OutboxStatus];

export interface OutboxTableOptions {
  /** Name of the outbox table. @default 'slicekit_outbox' */
  table?: string;
}

export const DEFAULT_OUTBOX_TABLE = 'slicekit_outbox';
