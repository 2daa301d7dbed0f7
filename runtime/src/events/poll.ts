// The outbox poller, the safety net of delivery: it finds what no commit of this process handed
// over (retries coming due, rows of a process that died, rows recorded where no bus ran) with one
// cheap query, and backs off while nothing is pending.
import type { Knex } from 'knex';
import { safeError } from '../logging/index.js';
import { OutboxStatus, type EventsLogger } from './types.js';

/** When the earliest pending row of the outbox comes due (epoch ms), or null when none is pending. */
export async function nextDue(knex: Knex, table: string): Promise<number | null> {
  const [row] = (await knex(table)
    .min({ next: 'available_at' })
    .where('status', OutboxStatus.Pending)) as { next: number | string | null }[];
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

export interface PollerOptions {
  knex: Knex;
  table: string;
  /** The first delay, and the delay while rows keep coming due. */
  minMs: number;
  /** The longest delay, reached by doubling while nothing is due. */
  maxMs: number;
  logger?: EventsLogger;
}

/**
 * Looks for due rows after a delay that starts at `minMs` and doubles up to `maxMs` each time
 * nothing is due; a row pending for later (a retry, a lease held elsewhere) is looked for when it
 * comes due, and `hurry()` brings the next look forward to `minMs`.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private delay: number;
  private dueAt = 0;
  private running = false;

  constructor(
    private readonly options: PollerOptions,
    /** Claims and delivers what is due. */
    private readonly dispatch: () => Promise<unknown>,
  ) {
    this.delay = options.minMs;
  }

  start(): void {
    this.running = true;
    this.delay = this.options.minMs;
    this.schedule(this.delay);
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Something may come due soon (a retry was scheduled, the broker came back): look again soon. */
  hurry(): void {
    this.delay = this.options.minMs;
    if (this.running && this.timer && this.dueAt > Date.now() + this.delay) {
      this.schedule(this.delay);
    }
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => void this.tick(), ms);
    // A timer alone must not keep a finished process (a CLI, a test run) alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    const { knex, table, minMs, maxMs, logger } = this.options;
    let wait: number;
    try {
      const next = await nextDue(knex, table);
      if (next !== null && next <= Date.now()) {
        await this.dispatch();
        this.delay = minMs;
        wait = minMs;
      } else {
        this.delay = Math.min(this.delay * 2, maxMs);
        wait = next === null ? this.delay : Math.min(this.delay, Math.max(1, next - Date.now()));
      }
    } catch (error) {
      logger?.error({ err: safeError(error) }, 'events: dispatching the outbox failed');
      this.delay = Math.min(this.delay * 2, maxMs);
      wait = this.delay;
    }
    if (this.running && !this.timer) this.schedule(wait);
  }
}
