// The shapes of the broker settings and their defaults, shared by the settings reader, the relays
// and the consumer helpers.
import type { EventsLogger } from '../types.js';

export type BrokerKind = 'nats' | 'amqp';

/** Where events go: the broker and the names on it. */
export interface BrokerSettings {
  kind: BrokerKind;
  /** `nats://...` or `amqp://...` / `amqps://...`, credentials included. */
  url: string;
  /** NATS: subjects are `<subjectPrefix>.<EventName>`. @default 'events' */
  subjectPrefix?: string;
  /** NATS: the JetStream stream, created with subjects `<subjectPrefix>.>` when missing. @default 'EVENTS' */
  stream?: string;
  /** RabbitMQ: the durable topic exchange, routing key `<EventName>`. @default 'events' */
  exchange?: string;
}

export const brokerDefaults = { subjectPrefix: 'events', stream: 'EVENTS', exchange: 'events' };

/** `url` without its password (and user), safe for a log line or an error message. */
export function redactBrokerUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return `${parsed.protocol}//***@${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '[unparsable URL]';
  }
}

/** Options of a relay besides where it connects. */
export interface RelayOptions {
  logger?: EventsLogger;
  /** Longest wait for the broker's confirmation of one publish. @default 5000 */
  publishTimeoutMs?: number;
}
