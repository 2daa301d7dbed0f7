// Marks delivered outbox rows `dispatched` in batches: one UPDATE for the rows of many writes,
// flushed a few milliseconds after the first delivery or once a batch is full.
import type { Knex } from 'knex';
import { safeError } from '../logging/index.js';
import type { DeliveryMarks } from './settle.js';
import { OutboxStatus, type EventsLogger } from './types.js';

interface Pending {
  token: string;
  relayed: boolean;
  ids: (number | string)[];
  /** The latest delivery of the group (epoch ms), its `dispatched_at`. */
  at: number;
}

/**
 * Delivered rows waiting to be marked. A row stays leased to its claim until then: a crash before
 * the flush delivers it again once the lease runs out (at least once), and the flush applies only
 * while the claim still holds the row, as a single settle does.
 */
export class DeliveredRows {
  private groups = new Map<string, Pending>();
  private size = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing = new Set<Promise<void>>();

  constructor(
    private readonly options: {
      knex: Knex;
      table: string;
      delayMs: number;
      batchSize: number;
      logger?: EventsLogger;
    },
  ) {}

  /** Records that the row `id` of claim `token` was delivered; marked at the next flush. */
  add(id: number | string, token: string, done: DeliveryMarks): void {
    const relayed = done.relayedAt !== undefined;
    const key = relayed ? `r:${token}` : token;
    let group = this.groups.get(key);
    if (!group) {
      group = { token, relayed, ids: [], at: 0 };
      this.groups.set(key, group);
    }
    group.ids.push(id);
    group.at = Math.max(group.at, done.relayedAt ?? done.handledAt ?? Date.now());
    this.size += 1;
    if (this.size >= this.options.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.delayMs);
  }

  /** Marks every row added so far; resolves once they (and flushes in progress) are written. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const groups = [...this.groups.values()];
    this.groups = new Map();
    this.size = 0;
    if (groups.length > 0) {
      const flushing = Promise.all(groups.map((group) => this.mark(group))).then(() => undefined);
      this.flushing.add(flushing);
      void flushing.finally(() => this.flushing.delete(flushing));
    }
    await Promise.all(this.flushing);
  }

  private async mark({ token, relayed, ids, at }: Pending): Promise<void> {
    const { knex, table, logger } = this.options;
    try {
      await knex(table)
        .whereIn('id', ids)
        .where('claim_token', token)
        .update({
          status: OutboxStatus.Dispatched,
          dispatched_at: at,
          claim_token: null,
          last_error: null,
          handled_at: knex.raw('coalesce(??, ?)', ['handled_at', at]),
          ...(relayed ? { relayed_at: at } : {}),
        });
    } catch (error) {
      // The rows stay leased: once the lease runs out they are delivered again.
      logger?.error(
        { err: safeError(error), events: ids.length },
        'events: marking delivered events failed; they will be delivered again',
      );
    }
  }
}
