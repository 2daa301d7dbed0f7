// `recordEvents`: writes a change's events into the outbox inside the caller's transaction.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { wakeAfterCommit } from './after-commit.js';
import { EventPayloadError } from './errors.js';
import { captureTraceparent } from './trace-context.js';
import {
  DEFAULT_OUTBOX_TABLE,
  OutboxStatus,
  type DomainEvent,
  type OutboxTableOptions,
} from './types.js';

function serialise(event: DomainEvent): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(event.payload ?? null);
  } catch (error) {
    throw new EventPayloadError(
      event.name,
      `event ${event.name}: payload is not JSON-serialisable`,
      {
        cause: error,
      },
    );
  }
  if (json === undefined) {
    throw new EventPayloadError(
      event.name,
      `event ${event.name}: payload is not JSON-serialisable`,
    );
  }
  return json;
}

/**
 * Stores `events` in the outbox through `trx`, so they commit or roll back with the change that
 * raised them, each with a fresh UUID and the `traceparent` of the active trace (when tracing
 * is on). After the commit, dispatchers started on the same database in this process are
 * woken at once; others (and this one, if it misses the wake-up) find the rows by polling.
 *
 * @example
 * await knex.transaction(async (trx) => {
 *   await trx('products').insert(row);
 *   await recordEvents(trx, createdEvents(productEvents, row));
 * });
 */
export async function recordEvents(
  trx: Knex | Knex.Transaction,
  events: readonly DomainEvent[],
  options: OutboxTableOptions = {},
): Promise<void> {
  if (events.length === 0) return;
  const now = Date.now();
  // One trace for the whole change: the events were raised by the same request.
  const traceparent = captureTraceparent();
  const rows = events.map((event) => {
    if (typeof event.name !== 'string' || event.name.trim() === '') {
      throw new EventPayloadError(String(event.name), 'an event needs a non-empty name');
    }
    return {
      event_id: randomUUID(),
      traceparent,
      name: event.name,
      entity: event.entity ?? null,
      entity_id: event.entityId ?? null,
      payload: serialise(event),
      status: OutboxStatus.Pending,
      attempts: 0,
      occurred_at: now,
      available_at: now,
    };
  });
  await trx(options.table ?? DEFAULT_OUTBOX_TABLE).insert(rows);
  wakeAfterCommit(trx);
}
