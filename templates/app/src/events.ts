// Subscribers to the events slices raise on save (the `events` of an entity spec). Events are
// written to the outbox in the same transaction as the change, then delivered here after the
// commit, at least once: a subscriber may see an event twice (`event.eventId` tells), and events
// left pending by a crash are delivered on the next start. With EVENTS_BROKER_URL set, every event
// is also published to that broker (NATS JetStream or RabbitMQ) for other services.
import type { Knex } from 'knex';
import {
  brokerHealthCheck,
  createBrokerRelay,
  EventBus,
  type BrokerHealthCheck,
} from '@slicekit/runtime/events';
import { eventsBroker } from './config.js';
import type { Logger } from './logger.js';
import type { AppEvents } from './slices/events.js';

export type AppEventBus = EventBus<AppEvents>;

/** Your subscribers, by event name: names and payloads are typed from the slices' events files. */
export function subscribe(_bus: AppEventBus, _logger: Logger): void {
  // _bus.on('ProductCreated', (event) => _logger.info(event.payload, 'product created'));
}

/** The app's event bus with every subscriber; `start()` it once migrations have run. */
export function createEventBus(knex: Knex, logger: Logger): AppEventBus {
  // The broker's client library is loaded only when EVENTS_BROKER_URL is set.
  const relay = eventsBroker ? createBrokerRelay(eventsBroker, { logger }) : undefined;
  const bus = new EventBus<AppEvents>({ knex, logger, relay });
  subscribe(bus, logger);
  return bus;
}

/**
 * The readiness checks of the event relay: a non-critical `broker` check, down while the broker
 * is unreachable (the outbox keeps the events meanwhile, so the app stays ready).
 */
export function eventHealthChecks(bus: AppEventBus): BrokerHealthCheck[] {
  return bus.relay ? [brokerHealthCheck(bus.relay)] : [];
}
