// Options of the event bus (the outbox dispatcher), their defaults and validation.
import type { Knex } from 'knex';
import { EventBusOptionsError } from './errors.js';
import type { EventRelay } from './relay.js';
import { DEFAULT_OUTBOX_TABLE, type EventsLogger } from './types.js';

export interface EventBusOptions {
  /** The app's database: the same Knex instance (or one on the same database) slices write through. */
  knex: Knex;
  /** Outbox table name. @default 'slicekit_outbox' */
  table?: string;
  /** Where deliveries, retries and give-ups are logged. @default undefined (silent) */
  logger?: EventsLogger;
  /**
   * Deliveries tried before an event is marked `failed`: each subscriber failure, and each time
   * the broker refuses the message (never a broker outage), uses one up. @default 10
   */
  maxAttempts?: number;
  /** Delay before the first retry; doubles after each failed attempt. @default 1000 */
  retryDelayMs?: number;
  /** Upper bound of the retry delay. @default 300000 (5 minutes) */
  maxRetryDelayMs?: number;
  /**
   * How long a claimed event stays invisible to other processes. If a process dies mid-delivery
   * the event is delivered again after this; keep it above the slowest subscriber.
   * @default 60000
   */
  leaseMs?: number;
  /** How often the outbox is checked for due events (retries, other processes' events). @default 1000 */
  pollIntervalMs?: number;
  /** Events claimed per round trip. @default 50 */
  batchSize?: number;
  /**
   * A broker every event is also published to (`createBrokerRelay`); the event counts as delivered
   * once its subscribers ran and the broker confirmed it. @default undefined (in-process only)
   */
  relay?: EventRelay;
  /**
   * Upper bound of the pause between publishes while the broker is out (it starts at
   * `retryDelayMs` and doubles); a relay that reconnects ends the pause at once. @default 10000
   */
  maxRelayRetryDelayMs?: number;
}

export type ResolvedEventBusOptions = Required<Omit<EventBusOptions, 'logger' | 'relay'>> &
  Pick<EventBusOptions, 'logger' | 'relay'>;

export const eventBusDefaults = {
  table: DEFAULT_OUTBOX_TABLE,
  maxAttempts: 10,
  retryDelayMs: 1000,
  maxRetryDelayMs: 300_000,
  leaseMs: 60_000,
  pollIntervalMs: 1000,
  batchSize: 50,
  maxRelayRetryDelayMs: 10_000,
} as const;

/** Applies defaults and throws `EventBusOptionsError` listing every broken rule. */
export function resolveEventBusOptions(options: EventBusOptions): ResolvedEventBusOptions {
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as EventBusOptions;
  const resolved = { ...eventBusDefaults, ...given };
  const problems: string[] = [];
  if (!options.knex) problems.push('knex is required');
  const positiveInt = (name: keyof typeof eventBusDefaults, min: number) => {
    const value = resolved[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      problems.push(`${name} must be an integer >= ${min} (got ${String(value)})`);
    }
  };
  positiveInt('maxAttempts', 1);
  positiveInt('retryDelayMs', 0);
  positiveInt('maxRetryDelayMs', 0);
  positiveInt('leaseMs', 1);
  positiveInt('pollIntervalMs', 1);
  positiveInt('batchSize', 1);
  positiveInt('maxRelayRetryDelayMs', 0);
  const relay = options.relay as Partial<EventRelay> | undefined;
  if (relay !== undefined && (typeof relay !== 'object' || typeof relay.publish !== 'function')) {
    problems.push('relay must be an EventRelay (createBrokerRelay)');
  }
  if (resolved.maxRetryDelayMs < resolved.retryDelayMs) {
    problems.push('maxRetryDelayMs must not be below retryDelayMs');
  }
  if (problems.length > 0) {
    throw new EventBusOptionsError(`invalid event bus options: ${problems.join('; ')}`);
  }
  return resolved;
}

/** Delay before retry number `attempt` (1-based): `retryDelayMs * 2^(attempt-1)`, capped. */
export function retryDelay(options: ResolvedEventBusOptions, attempt: number): number {
  return Math.min(options.maxRetryDelayMs, options.retryDelayMs * 2 ** Math.max(0, attempt - 1));
}
