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
  /**
   * How soon the outbox is checked for due events (retries, rows of a process that died, rows
   * recorded where no bus ran) while some keep coming due; the safety net, since this process's
   * own events are handed over after their commit. @default 1000
   */
  pollIntervalMs?: number;
  /**
   * The longest wait between two checks: each check that finds nothing due doubles the wait up to
   * this. A row pending for later (a retry, another process's lease) is looked for when it comes
   * due. @default 30000, or `pollIntervalMs` when that is longer
   */
  maxPollIntervalMs?: number;
  /**
   * How long delivered events wait to be marked `dispatched` together, in one statement (sooner
   * once `batchSize` are waiting). A crash in between delivers them again. @default 100
   */
  settleDelayMs?: number;
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
  maxPollIntervalMs: 30_000,
  settleDelayMs: 100,
  batchSize: 50,
  maxRelayRetryDelayMs: 10_000,
} as const;

/** Applies defaults and throws `EventBusOptionsError` listing every broken rule. */
export function resolveEventBusOptions(options: EventBusOptions): ResolvedEventBusOptions {
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as EventBusOptions;
  const resolved = { ...eventBusDefaults, ...given };
  if (given.maxPollIntervalMs === undefined && typeof resolved.pollIntervalMs === 'number') {
    resolved.maxPollIntervalMs = Math.max(resolved.maxPollIntervalMs, resolved.pollIntervalMs);
  }
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
  positiveInt('maxPollIntervalMs', 1);
  positiveInt('settleDelayMs', 0);
  positiveInt('batchSize', 1);
  positiveInt('maxRelayRetryDelayMs', 0);
  const relay = options.relay as Partial<EventRelay> | undefined;
  if (relay !== undefined && (typeof relay !== 'object' || typeof relay.publish !== 'function')) {
    problems.push('relay must be an EventRelay (createBrokerRelay)');
  }
  if (resolved.maxPollIntervalMs < resolved.pollIntervalMs) {
    problems.push('maxPollIntervalMs must not be below pollIntervalMs');
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
