// Publishing through the relay, paused with a growing back-off while the broker is out, so an
// outage costs one failed try per pause instead of one per event; a message the broker refuses
// is handed back to its row alone, so it never holds up the events after it.
import { safeError } from '../logging/index.js';
import type { ResolvedEventBusOptions } from './options.js';
import { EventRefusedError, relayMessageOf, reportPublish, type EventRelay } from './relay.js';
import type { OutboxEvent } from './types.js';

/**
 * What one publish came to: confirmed at `relayedAt`, refused by the broker for this message
 * alone, or neither (the broker is out, or the gate paused for it).
 */
export type PublishResult = { relayedAt: number } | { refused: unknown } | undefined;

export class RelayGate {
  /** No publish is tried before this time (epoch ms). */
  private pausedUntil = 0;
  private failures = 0;

  constructor(
    readonly relay: EventRelay,
    private readonly options: ResolvedEventBusOptions,
  ) {}

  /** True while publishing is paused after a failure. */
  paused(): boolean {
    return Date.now() < this.pausedUntil;
  }

  /** The relay is back: end the pause. */
  reopen(): void {
    this.pausedUntil = 0;
    this.failures = 0;
  }

  /**
   * Relays the event; resolves to when the broker confirmed it, to the refusal when the connected
   * broker refused this message, or to undefined when the gate is paused or the broker is out
   * (logged, and the pause set or grown until the broker answers again).
   */
  async publish(event: OutboxEvent): Promise<PublishResult> {
    const { logger, retryDelayMs, maxRelayRetryDelayMs } = this.options;
    if (this.paused()) return undefined;
    try {
      await this.relay.publish(relayMessageOf(event));
    } catch (error) {
      reportPublish(event.name, false);
      // Only an outage pauses everything; a refusal is that row's own business (attempt.ts).
      if (error instanceof EventRefusedError && this.relay.isConnected()) {
        return { refused: error };
      }
      this.failures += 1;
      const delay = Math.min(maxRelayRetryDelayMs, retryDelayMs * 2 ** (this.failures - 1));
      this.pausedUntil = Date.now() + delay;
      // The first failure of an outage is a warning; the retries after it are routine.
      const log = this.failures === 1 ? logger?.warn : logger?.debug;
      log?.call(
        logger,
        { err: safeError(error), eventId: event.id, event: event.name, retryInMs: delay },
        `events: the ${this.relay.kind} broker did not take ${event.name}; it stays pending`,
      );
      return undefined;
    }
    if (this.failures > 0) {
      logger?.info({ broker: this.relay.kind }, 'events: the broker takes events again');
    }
    this.failures = 0;
    reportPublish(event.name, true);
    return { relayedAt: Date.now() };
  }
}
