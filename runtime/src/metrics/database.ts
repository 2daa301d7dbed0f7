// Gauges read at scrape time from the database: the connection pool (in use, idle, waiting) and
// the event outbox (pending rows, age of the oldest), with OpenTelemetry's names for the pool.
import type { Knex } from 'knex';
import type * as PromClient from 'prom-client';
import { DEFAULT_OUTBOX_TABLE } from '../events/index.js';
import type { MetricsLogger } from './options.js';

/** The part of Knex's tarn pool read here (public tarn methods). */
interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

const poolOf = (knex: Knex): TarnPool | undefined =>
  (knex.client as { pool?: TarnPool | null }).pool ?? undefined;

/** Connection pool gauges; an unset or destroyed pool reads as empty. */
export function poolGauges(client: typeof PromClient, registry: PromClient.Registry, knex: Knex) {
  const registers = [registry];
  new client.Gauge({
    name: 'db_client_connection_count',
    help: 'Connections of the database pool, by state: used (lent to a query) or idle.',
    labelNames: ['db_client_connection_state'],
    registers,
    collect() {
      const pool = poolOf(knex);
      this.set({ db_client_connection_state: 'used' }, pool ? pool.numUsed() : 0);
      this.set({ db_client_connection_state: 'idle' }, pool ? pool.numFree() : 0);
    },
  });
  new client.Gauge({
    name: 'db_client_connection_pending_requests',
    help: 'Queries waiting for a connection of the database pool.',
    registers,
    collect() {
      this.set(poolOf(knex)?.numPendingAcquires() ?? 0);
    },
  });
  new client.Gauge({
    name: 'db_client_connection_max',
    help: 'Most connections the database pool opens.',
    registers,
    collect() {
      this.set(poolOf(knex)?.max ?? 0);
    },
  });
}

interface OutboxState {
  pending: number;
  /** Seconds since the oldest pending event was recorded; 0 when none is pending. */
  oldestAgeSeconds: number;
}

export interface OutboxGaugeOptions {
  table?: string;
  /** Longest wait for the outbox query before the scrape answers without it. */
  timeoutMs: number;
  logger: MetricsLogger;
}

/**
 * Outbox gauges, from one query per scrape over the pending rows (the status index narrows it).
 * A query that fails or runs out of time makes both read NaN ("unknown") for that scrape: the
 * rest of the scrape is served, and the failure is logged once until a query succeeds again.
 */
export function outboxGauges(
  client: typeof PromClient,
  registry: PromClient.Registry,
  knex: Knex,
  options: OutboxGaugeOptions,
) {
  const table = options.table ?? DEFAULT_OUTBOX_TABLE;
  let failing = false;
  let inFlight: Promise<OutboxState | undefined> | undefined;

  async function query(): Promise<OutboxState | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the outbox query timed out')), options.timeoutMs);
    });
    try {
      const row = (await Promise.race([
        knex(table)
          .where('status', 'pending')
          .count({ pending: '*' })
          .min({ oldest: 'occurred_at' })
          .first(),
        late,
      ])) as { pending?: number | string; oldest?: number | string | null } | undefined;
      failing = false;
      const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
      return {
        pending: Number(row?.pending ?? 0),
        oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000),
      };
    } catch (error) {
      if (!failing) {
        options.logger.warn({ err: error }, 'metrics: cannot read the event outbox');
      }
      failing = true;
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  // Both gauges are collected in the same scrape, at once: they share one query.
  const read = () => (inFlight ??= query().finally(() => (inFlight = undefined)));
  const registers = [registry];
  new client.Gauge({
    name: 'slicekit_outbox_pending_events',
    help: 'Events committed to the outbox and not yet delivered.',
    registers,
    async collect() {
      this.set((await read())?.pending ?? NaN);
    },
  });
  new client.Gauge({
    name: 'slicekit_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest event still pending in the outbox (0 when none is).',
    registers,
    async collect() {
      this.set((await read())?.oldestAgeSeconds ?? NaN);
    },
  });
}
