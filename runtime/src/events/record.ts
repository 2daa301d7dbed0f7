// `recordEvents`: writes a change's events into the outbox inside the caller's transaction.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import { afterCommit, notifyAfterCommit, outletFor } from './after-commit.js';
import type { OutboxRow } from './claim.js';
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
 * is on). When a bus runs on the same database in this process, the rows are inserted leased to
 * it and handed to it from memory once the transaction commits: no statement reads them back.
 * Otherwise they are due at once, and a bus (this process's later, or another's) finds them by
 * polling.
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
  const table = options.table ?? DEFAULT_OUTBOX_TABLE;
  const now = Date.now();
  // One trace for the whole change: the events were raised by the same request.
  const traceparent = captureTraceparent();
  const found = outletFor(trx, table);
  const outlet = found?.wants() ? found : undefined;
  const token = outlet?.token;
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
      // Leased to this process's bus, this delivery counted (as a claim counts one).
      attempts: outlet ? 1 : 0,
      occurred_at: now,
      available_at: outlet ? now + outlet.leaseMs : now,
      ...(outlet ? { claim_token: token } : {}),
    };
  });
  if (!outlet) {
    await trx(table).insert(rows);
    notifyAfterCommit(trx);
    if (found) afterCommit(trx, () => found.missed());
    return;
  }
  const ids = await dialectFor(trx).insertReturningIds(trx, table, rows, 'event_id');
  notifyAfterCommit(trx);
  const recorded: OutboxRow[] = rows.map((row) => ({
    id: ids.get(row.event_id)!,
    name: row.name,
    entity: row.entity,
    entity_id: row.entity_id,
    payload: row.payload,
    attempts: 1,
    occurred_at: now,
    event_id: row.event_id,
    traceparent,
    handled_at: null,
    relayed_at: null,
  }));
  afterCommit(trx, () => outlet.accept(token!, recorded));
}
