// Claiming due outbox rows so that several processes sharing a database do not deliver the
// same row twice, and settling a claimed row once its subscribers have run.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import { OutboxStatus } from './types.js';

export interface OutboxRow {
  id: number | string;
  name: string;
  entity: string | null;
  entity_id: string | null;
  payload: string;
  attempts: number | string;
  occurred_at: number | string;
  /** Null only for a row recorded before the outbox had the column; claimDue fills it in. */
  event_id: string | null;
  traceparent: string | null;
  handled_at: number | string | null;
  relayed_at: number | string | null;
}

export interface ClaimRequest {
  table: string;
  now: number;
  leaseMs: number;
  batchSize: number;
  /**
   * Only rows whose subscribers have not run yet: while the broker is out, rows waiting for it
   * alone are left where they are instead of being claimed and put back every poll.
   */
  unhandledOnly?: boolean;
}

export interface Claim {
  token: string;
  rows: OutboxRow[];
}

const columns = [
  'id',
  'name',
  'entity',
  'entity_id',
  'payload',
  'attempts',
  'occurred_at',
  'event_id',
  'traceparent',
  'handled_at',
  'relayed_at',
];

/**
 * Reads nothing but proves the outbox is usable: the table and the columns a claim touches exist
 * and the database answers. Rejects otherwise (a migration missing, the database down).
 */
export async function probeOutbox(knex: Knex, table: string): Promise<void> {
  await knex(table)
    .select([...columns, 'status', 'available_at', 'claim_token'])
    .where('id', '<', 0)
    .limit(1);
}

/**
 * Claims up to `batchSize` due rows: stamps them with a fresh token, pushes `available_at` past
 * the lease and counts the attempt. Another process skips them until the lease runs out, which
 * only happens if this one dies (or a subscriber outlives the lease) before settling them.
 *
 * PostgreSQL and MySQL/MariaDB:
 *   A: SELECT ... FOR UPDATE SKIP LOCKED -> rows 1..50 locked
 *   B: SELECT ... FOR UPDATE SKIP LOCKED -> skips 1..50, gets 51..100 (or nothing), no waiting
 *   A: UPDATE 1..50 SET claim_token, available_at = now + lease; COMMIT
 *   B: after A's commit, 1..50 are no longer due, so B never sees them
 * SQLite: one UPDATE ... WHERE id IN (SELECT ... LIMIT n) statement; SQLite runs a writing
 * statement under the database's single write lock, so two processes cannot both match a row.
 */
export async function claimDue(knex: Knex, request: ClaimRequest): Promise<Claim> {
  const { table, now, leaseMs, batchSize, unhandledOnly = false } = request;
  const token = randomUUID();
  const stamp = (q: Knex.QueryBuilder) =>
    q.update({
      claim_token: token,
      available_at: now + leaseMs,
      // An attempt counts the subscribers' deliveries: a row whose subscribers already ran and
      // that waits only for the broker does not use one up.
      attempts: knex.raw('case when ?? is null then ?? + 1 else ?? end', [
        'handled_at',
        'attempts',
        'attempts',
      ]),
    });
  const due = (q: Knex.QueryBuilder) => {
    q.where('status', OutboxStatus.Pending).andWhere('available_at', '<=', now);
    if (unhandledOnly) q.whereNull('handled_at');
    return q.orderBy('id').limit(batchSize);
  };

  const rows = (await dialectFor(knex).claim(knex, {
    table,
    columns,
    due,
    stamp,
    token,
  })) as unknown as OutboxRow[];
  return { token, rows: await withEventIds(knex, table, token, rows) };
}

/**
 * Gives a claimed row recorded without an id (before the column existed, or by a process of the
 * previous version) a UUID, stored before anything is delivered so every retry and every process
 * relays it under the same id. Only while the claim holds the row; a row lost meanwhile is
 * left to its new claimer.
 */
async function withEventIds(
  knex: Knex,
  table: string,
  token: string,
  rows: OutboxRow[],
): Promise<OutboxRow[]> {
  for (const row of rows) {
    if (row.event_id) continue;
    const eventId = randomUUID();
    await knex(table)
      .where({ id: row.id, claim_token: token })
      .whereNull('event_id')
      .update({ event_id: eventId });
    const [stored] = (await knex(table).select('event_id').where('id', row.id)) as {
      event_id: string | null;
    }[];
    row.event_id = stored?.event_id ?? eventId;
  }
  return rows;
}

/**
 * Pushes the lease of a claim's unsettled rows to `now + leaseMs` and returns the ids still held.
 * A bus delivering a long batch renews as it goes, so its last rows are not taken over by another
 * process while it works through the first; a row whose lease ran out before the renewal and that
 * another process claimed carries that process's token, is not renewed, and is not returned.
 */
export async function renewClaim(
  knex: Knex,
  table: string,
  token: string,
  ids: readonly (number | string)[],
  now: number,
  leaseMs: number,
): Promise<Set<string>> {
  // By primary key: `claim_token` has no index, and MySQL would lock the whole outbox scanning it.
  const held = () =>
    knex(table).whereIn('id', ids).where({ claim_token: token, status: OutboxStatus.Pending });
  await held().update({ available_at: now + leaseMs });
  const rows = (await held().select('id')) as { id: number | string }[];
  return new Set(rows.map((row) => String(row.id)));
}

/**
 * Hands back the rows of a claim that were never delivered (the bus is stopping): they are due at
 * once again, for this process's next start or another process, without waiting out the lease,
 * and the attempt the claim counted is returned since no subscriber saw them.
 */
export async function releaseClaim(
  knex: Knex,
  table: string,
  token: string,
  ids: readonly (number | string)[],
  now: number,
) {
  await knex(table)
    .whereIn('id', ids)
    .where({ claim_token: token, status: OutboxStatus.Pending })
    .update({
      claim_token: null,
      available_at: now,
      attempts: knex.raw('case when ?? is null then ?? - 1 else ?? end', [
        'handled_at',
        'attempts',
        'attempts',
      ]),
    });
}
