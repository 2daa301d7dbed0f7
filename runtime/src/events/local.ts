// The events this process recorded, handed over from memory after their commit and leased to
// this bus: delivered without reading them back, their lease renewed while they wait.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { openOutlet, type LocalOutlet } from './after-commit.js';
import { releaseClaim, renewClaim, type OutboxRow } from './claim.js';

/** A claim is renewed once a tenth of its lease has passed since it was taken or last renewed. */
export const renewEvery = 10;

interface Queued {
  row: OutboxRow;
  token: string;
}

/**
 * The local side of a running bus: the outlet `recordEvents` leases rows to (a token per
 * `start()`), and the queue of committed rows waiting for their delivery, in recording order.
 */
export class LocalEvents {
  private queue: Queued[] = [];
  private leasedAt = 0;
  private closeOutlet: (() => void) | undefined;
  private outlet: LocalOutlet | undefined;
  /** Rows recorded due at once while the queue was full: the next pass claims them. */
  private overflowed = false;

  constructor(
    private readonly options: {
      knex: Knex;
      table: string;
      leaseMs: number;
      /** Rows held in memory at most; beyond it, rows are recorded for the poller. */
      capacity: number;
    },
    /** Called when rows arrive (or were recorded for the poller): a pass should run. */
    private readonly wake: (claim: boolean) => void,
  ) {}

  get length(): number {
    return this.queue.length;
  }

  /** Starts taking this process's events (a fresh lease token). */
  open(): void {
    const { knex, table, leaseMs, capacity } = this.options;
    const outlet: LocalOutlet = {
      table,
      token: randomUUID(),
      leaseMs,
      wants: () => this.queue.length < capacity,
      accept: (token, rows) => {
        if (this.outlet !== outlet) {
          // Committed after the bus stopped: handed back at once, due for whoever runs next.
          void releaseClaim(
            knex,
            table,
            token,
            rows.map((row) => row.id),
            Date.now(),
          ).catch(() => undefined);
          return;
        }
        if (this.queue.length === 0) this.leasedAt = Date.now();
        // Commits can end out of recording order; the queue stays in outbox id order.
        for (const row of rows) {
          let at = this.queue.length;
          while (at > 0 && Number(this.queue[at - 1]!.row.id) > Number(row.id)) at -= 1;
          this.queue.splice(at, 0, { row, token });
        }
        this.wake(false);
      },
      missed: () => {
        this.overflowed = true;
        this.wake(false);
      },
    };
    this.outlet = outlet;
    this.closeOutlet = openOutlet(knex, outlet);
  }

  /** True while rows recorded for the poller (the queue was full) wait and the queue is empty. */
  overflowWaiting(): boolean {
    return this.overflowed && this.queue.length === 0;
  }

  /** True once, after rows were recorded for the poller while the queue was full. */
  takeOverflow(): boolean {
    const overflowed = this.overflowed && this.queue.length === 0;
    if (overflowed) this.overflowed = false;
    return overflowed;
  }

  /**
   * The next row to deliver and its lease token, or undefined when none is left. The queue's
   * lease is renewed first when a tenth of it has passed; rows another process took over since
   * (the lease ran out) are dropped.
   */
  async next(): Promise<Queued | undefined> {
    const { knex, table, leaseMs } = this.options;
    if (this.queue.length > 0 && Date.now() - this.leasedAt >= leaseMs / renewEvery) {
      this.leasedAt = Date.now();
      const byToken = new Map<string, (number | string)[]>();
      for (const { row, token } of this.queue) {
        byToken.set(token, [...(byToken.get(token) ?? []), row.id]);
      }
      const held = new Set<string>();
      for (const [token, ids] of byToken) {
        for (const id of await renewClaim(knex, table, token, ids, this.leasedAt, leaseMs)) {
          held.add(`${token}/${id}`);
        }
      }
      this.queue = this.queue.filter(({ row, token }) => held.has(`${token}/${String(row.id)}`));
    }
    return this.queue.shift();
  }

  /** Hands back a row `next()` gave, undelivered, to the head of the queue. */
  putBack(queued: Queued): void {
    this.queue.unshift(queued);
  }

  /** Stops taking events: rows committed from now on are released as they arrive. */
  close(): void {
    this.closeOutlet?.();
    this.closeOutlet = undefined;
    this.outlet = undefined;
  }

  /** Releases the rows still queued, due at once for the next start or another process. */
  async release(): Promise<void> {
    const left = this.queue;
    this.queue = [];
    const byToken = new Map<string, (number | string)[]>();
    for (const { row, token } of left) byToken.set(token, [...(byToken.get(token) ?? []), row.id]);
    for (const [token, ids] of byToken) {
      await releaseClaim(this.options.knex, this.options.table, token, ids, Date.now());
    }
  }
}
