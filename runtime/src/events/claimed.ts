// One batch of due outbox rows claimed from the database and delivered one after another: the
// backlog after a start, retries, rows of a process that died, rows no running bus recorded.
import { attemptDelivery, type AttemptContext } from './attempt.js';
import { claimDue, releaseClaim, renewClaim } from './claim.js';
import { renewEvery } from './local.js';
import type { DispatchSummary } from './types.js';

/**
 * Claims up to a batch of due rows and delivers them in id order, renewing the lease of the rest
 * of the batch as it goes; once `halting()` turns true, the rows not yet handed to a subscriber
 * are released (due at once, their attempt not counted).
 */
export async function deliverClaimed(
  context: AttemptContext,
  halting: () => boolean,
): Promise<DispatchSummary & { claimed: number }> {
  const { knex, table, leaseMs, batchSize, logger } = context.options;
  let leasedAt = Date.now();
  const claim = await claimDue(knex, {
    table,
    now: leasedAt,
    leaseMs,
    batchSize,
    unhandledOnly: context.gate?.paused() ?? false,
  });
  const summary = {
    delivered: 0,
    retried: 0,
    failed: 0,
    awaitingBroker: 0,
    claimed: claim.rows.length,
  };
  let held: Set<string> | undefined;
  for (const [index, row] of claim.rows.entries()) {
    if (halting()) {
      const left = claim.rows.slice(index).map((rest) => rest.id);
      await releaseClaim(knex, table, claim.token, left, Date.now());
      logger?.debug({ left: left.length }, 'events: stopping, claimed events left pending');
      break;
    }
    // The whole batch was leased at once; a slow backlog can outlast that lease. Renewing
    // between deliveries keeps every delivery shorter than 9/10 of the lease covered.
    if (Date.now() - leasedAt >= leaseMs / renewEvery) {
      leasedAt = Date.now();
      const rest = claim.rows.slice(index).map((left) => left.id);
      held = await renewClaim(knex, table, claim.token, rest, leasedAt, leaseMs);
    }
    if (held && !held.has(String(row.id))) continue;
    summary[await attemptDelivery(context, row, claim.token)] += 1;
  }
  return summary;
}
