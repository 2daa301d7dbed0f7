// Settling a claimed outbox row once an attempt is over: delivered, waiting for the broker, or
// failed (retried later or given up). Each applies only while the claim still holds the row.
import type { Knex } from 'knex';
import { OutboxStatus } from './types.js';

/** What a delivery attempt finished: the subscribers' part, the broker's part, or both. */
export interface DeliveryMarks {
  /** The subscribers all returned, at this time (epoch ms). */
  handledAt?: number;
  /** The broker confirmed the event, at this time (epoch ms). */
  relayedAt?: number;
}

function marks({ handledAt, relayedAt }: DeliveryMarks): Record<string, number> {
  return {
    ...(handledAt === undefined ? {} : { handled_at: handledAt }),
    ...(relayedAt === undefined ? {} : { relayed_at: relayedAt }),
  };
}

/**
 * Marks delivered a claimed row whose subscribers had run before and that the broker has now
 * confirmed: `dispatched`, or `failed` when its subscribers gave up (their error is kept).
 */
export async function settleRelayed(
  knex: Knex,
  table: string,
  id: number,
  token: string,
  relayedAt: number,
) {
  await knex(table)
    .where({ id, claim_token: token })
    .update({
      status: knex.raw('case when ?? is null then ? else ? end', [
        'last_error',
        OutboxStatus.Dispatched,
        OutboxStatus.Failed,
      ]),
      dispatched_at: relayedAt,
      relayed_at: relayedAt,
      claim_token: null,
    });
}

/**
 * Puts back a claimed row that is only waiting for the broker: pending and due at once, with what
 * this attempt did recorded (a broker outage never uses up an event's attempts: a claim counts
 * one only for a row whose subscribers have not run).
 */
export async function settleAwaitingRelay(
  knex: Knex,
  table: string,
  id: number,
  token: string,
  done: DeliveryMarks & {
    /** The subscribers' error when they gave up, null when they succeeded; kept when undefined. */
    error?: string | null;
  },
) {
  await knex(table)
    .where({ id, claim_token: token })
    .update({
      available_at: Date.now(),
      claim_token: null,
      ...(done.error === undefined ? {} : { last_error: done.error?.slice(0, 4000) ?? null }),
      ...marks(done),
    });
}

/** Schedules a retry at `retryAt`, or marks the row failed when `retryAt` is null. */
export async function settleFailed(
  knex: Knex,
  table: string,
  id: number,
  token: string,
  error: string,
  retryAt: number | null,
  done: DeliveryMarks = {},
) {
  await knex(table)
    .where({ id, claim_token: token })
    .update({
      status: retryAt === null ? OutboxStatus.Failed : OutboxStatus.Pending,
      available_at: retryAt ?? Date.now(),
      claim_token: null,
      last_error: error.slice(0, 4000),
      ...marks(done),
    });
}

/**
 * Settles a claimed row whose event the broker refused: due again at `retryAt`, or `failed` when
 * `retryAt` is null, with its attempts (a refusal uses one up) stored. `last_error` tells
 * `settleRelayed` whether the subscribers gave up, so a refusal only writes it when the row ends
 * failed, and then keeps the subscribers' error if they had given up before.
 */
export async function settleRefused(
  knex: Knex,
  table: string,
  id: number,
  token: string,
  refusal: {
    error: string;
    retryAt: number | null;
    attempts: number;
    /** The subscribers returned in this attempt, at this time: an earlier error of theirs goes. */
    handledAt?: number;
  },
) {
  const { error, retryAt, attempts, handledAt } = refusal;
  const message = error.slice(0, 4000);
  const keepOrFill = knex.raw('coalesce(??, ?)', ['last_error', message]);
  let lastError: Record<string, unknown> = {};
  if (retryAt === null) lastError = { last_error: handledAt === undefined ? keepOrFill : message };
  else if (handledAt !== undefined) lastError = { last_error: null };
  await knex(table)
    .where({ id, claim_token: token })
    .update({
      status: retryAt === null ? OutboxStatus.Failed : OutboxStatus.Pending,
      available_at: retryAt ?? Date.now(),
      claim_token: null,
      attempts,
      ...lastError,
      ...marks({ handledAt }),
    });
}
