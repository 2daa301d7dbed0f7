// One delivery attempt of a claimed outbox row: its subscribers and its relay, each run only if
// not done yet, and the row settled according to what succeeded.
import { safeError } from '../logging/index.js';
import type { OutboxRow } from './claim.js';
import { retryDelay, type ResolvedEventBusOptions } from './options.js';
import type { RelayGate } from './relay-gate.js';
import { settleAwaitingRelay, settleFailed, settleRefused, settleRelayed } from './settle.js';
import type { DeliveredRows } from './delivered.js';
import type { OutboxEvent } from './types.js';

/** How an attempt ended, as counted in a `DispatchSummary`. */
export type Outcome = 'delivered' | 'retried' | 'failed' | 'awaitingBroker';

export interface AttemptContext {
  options: ResolvedEventBusOptions;
  gate: RelayGate | undefined;
  /** Runs every subscriber of the event; resolves to the first error, or undefined. */
  deliver(event: OutboxEvent): Promise<unknown>;
  /** Where delivered rows wait to be marked, many in one statement. */
  delivered: DeliveredRows;
}

export function toEvent(row: OutboxRow): OutboxEvent {
  return {
    id: Number(row.id),
    // claimDue gives every row it returns an id.
    eventId: row.event_id ?? '',
    traceparent: row.traceparent,
    name: row.name,
    payload: JSON.parse(row.payload) as unknown,
    entity: row.entity,
    entityId: row.entity_id,
    occurredOn: new Date(Number(row.occurred_at)),
    attempt: Number(row.attempts),
  };
}

/**
 * One claimed row: its subscribers unless they already ran, then the relay unless the broker
 * already confirmed it, each part recorded on the row as it succeeds. A subscriber failure uses
 * up an attempt (retried with back-off, then `failed`), and so does the broker refusing the
 * message; a broker outage does not: the row stays pending until the broker takes it, however
 * long the outage.
 */
export async function attemptDelivery(
  { options, gate, deliver, delivered }: AttemptContext,
  row: OutboxRow,
  token: string,
): Promise<Outcome> {
  const { knex, table, maxAttempts, logger } = options;
  const event = toEvent(row);
  const needsHandlers = row.handled_at === null;
  const needsRelay = gate !== undefined && row.relayed_at === null;
  const handlerError = needsHandlers ? await deliver(event) : undefined;
  const handledAt = needsHandlers && !handlerError ? Date.now() : undefined;
  const published = needsRelay ? await gate.publish(event) : undefined;
  const relayedAt = published && 'relayedAt' in published ? published.relayedAt : undefined;
  const refused = published && 'refused' in published ? { error: published.refused } : undefined;
  const relayDone = !needsRelay || relayedAt !== undefined;

  if (!handlerError) {
    if (refused) {
      return refusedByBroker(options, event, token, refused.error, {
        needsHandlers,
        handledAt,
      });
    }
    if (!relayDone) {
      await settleAwaitingRelay(knex, table, event.id, token, {
        handledAt,
        ...(needsHandlers ? { error: null } : {}),
      });
      return 'awaitingBroker';
    }
    if (!needsHandlers && relayedAt !== undefined) {
      await settleRelayed(knex, table, event.id, token, relayedAt);
    } else {
      delivered.add(row.id, token, { handledAt, relayedAt });
    }
    return 'delivered';
  }
  const message = handlerError instanceof Error ? handlerError.message : String(handlerError);
  const context = {
    err: safeError(handlerError),
    eventId: event.id,
    event: event.name,
    attempt: event.attempt,
  };
  if (event.attempt < maxAttempts) {
    const retryAt = Date.now() + retryDelay(options, event.attempt);
    await settleFailed(knex, table, event.id, token, message, retryAt, { relayedAt });
    logger?.warn({ ...context, retryAt }, `events: a ${event.name} subscriber failed, will retry`);
    return 'retried';
  }
  logger?.error(context, `events: ${event.name} failed ${event.attempt} times, giving up`);
  // A broker that refused the event is given up on with the subscribers.
  if (relayDone || refused) {
    await settleFailed(knex, table, event.id, token, message, null, { relayedAt });
    return 'failed';
  }
  // The subscribers are given up on, the broker is not: the row ends `failed` once relayed.
  await settleAwaitingRelay(knex, table, event.id, token, {
    handledAt: Date.now(),
    error: message,
  });
  return 'awaitingBroker';
}

/**
 * The connected broker refused this event (too large, nacked, a stream error for it): that row
 * alone is retried with back-off, the refusal using up an attempt, and ends `failed` after
 * `maxAttempts`; the events after it keep flowing.
 */
async function refusedByBroker(
  options: ResolvedEventBusOptions,
  event: OutboxEvent,
  token: string,
  refusal: unknown,
  { needsHandlers, handledAt }: { needsHandlers: boolean; handledAt: number | undefined },
): Promise<Outcome> {
  const { knex, table, maxAttempts, logger } = options;
  // The claim counted this attempt for a row whose subscribers ran in it; not for the others.
  const attempts = needsHandlers ? event.attempt : event.attempt + 1;
  const error = refusal instanceof Error ? refusal.message : String(refusal);
  const context = {
    err: safeError(refusal),
    eventId: event.id,
    messageId: event.eventId,
    event: event.name,
    attempt: attempts,
  };
  if (attempts < maxAttempts) {
    const retryAt = Date.now() + retryDelay(options, attempts);
    await settleRefused(knex, table, event.id, token, { error, retryAt, attempts, handledAt });
    logger?.warn({ ...context, retryAt }, `events: the broker refused ${event.name}, will retry`);
    return 'retried';
  }
  await settleRefused(knex, table, event.id, token, { error, retryAt: null, attempts, handledAt });
  logger?.error(context, `events: the broker refused ${event.name} ${attempts} times, giving up`);
  return 'failed';
}
