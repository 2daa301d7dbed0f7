// Subscribers to the events slices raise on save (the `events` of an entity spec). Events are
// written to the outbox in the same transaction as the change, then delivered here after the
// commit, at least once: a subscriber may see an event twice (`event.id` tells), and events left
// pending by a crash are delivered on the next start.
import type { Knex } from 'knex';
import { EventBus } from '@slicekit/runtime/events';
import type { Logger } from './logger.js';
import type { AppEvents } from './slices/events.js';

export type AppEventBus = EventBus<AppEvents>;

/** Your subscribers, by event name: names and payloads are typed from the slices' events files. */
export function subscribe(_bus: AppEventBus, _logger: Logger): void {
  // _bus.on('ProductCreated', (event) => _logger.info(event.payload, 'product created'));
}

/** The app's event bus with every subscriber; `start()` it once migrations have run. */
export function createEventBus(knex: Knex, logger: Logger): AppEventBus {
  const bus = new EventBus<AppEvents>({ knex, logger });
  subscribe(bus, logger);
  return bus;
}
