// What `startMetrics()` takes, with its defaults in one place.
import type { Knex } from 'knex';

/** A pino-compatible logger. */
export interface MetricsLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

export interface MetricsOptions {
  /** TCP port of the `/metrics` listener; 0 turns metrics off (prom-client is then never loaded). */
  port: number;
  /** Interface to listen on. @default every interface, as the app's own port */
  host?: string;
  /** The app's Knex instance: pool gauges, and the outbox query. Without it, neither is exported. */
  knex?: Knex;
  logger: MetricsLogger;
  /** The outbox table the gauges read. @default 'slicekit_outbox' */
  outboxTable?: string;
  /** Longest wait for the outbox query during a scrape. @default 2000 */
  outboxTimeoutMs?: number;
  /** Node's process metrics (CPU, memory, event loop, GC) from prom-client. @default true */
  processMetrics?: boolean;
}

export const metricsDefaults = {
  outboxTimeoutMs: 2000,
  processMetrics: true,
  /** Distinct route templates and event names kept as labels; any further one is `_OTHER`. */
  maxLabelValues: 500,
} as const;

/** A started metrics endpoint. */
export interface Metrics {
  /** The port `/metrics` is served on; undefined when metrics are off. */
  readonly port: number | undefined;
  /** The exposition text a scrape gets now ('' when metrics are off). */
  text(): Promise<string>;
  /** Stops listening to the channels and closes the listener. */
  close(): Promise<void>;
}
