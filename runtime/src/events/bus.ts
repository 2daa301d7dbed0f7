// `EventBus`: typed subscribers by event name, fed from the outbox after commit, at least once.
import { safeError } from '../logging/safe-error.js';
import { onEventsCommitted } from './after-commit.js';
import { attemptDelivery } from './attempt.js';
import { claimDue, probeOutbox, releaseClaim, renewClaim } from './claim.js';
import {
  resolveEventBusOptions,
  type EventBusOptions,
  type ResolvedEventBusOptions,
} from './options.js';
import { RelayGate } from './relay-gate.js';
import type { EventRelay } from './relay.js';
import type { EventMap, OutboxEvent } from './types.js';

export type EventHandler<Name extends string = string, Payload = unknown> = (
  event: OutboxEvent<Name, Payload>,
) => void | Promise<void>;

/** What one `dispatchPending()` call did. */
export interface DispatchSummary {
  /** Events every subscriber accepted. */
  delivered: number;
  /** Events a subscriber threw on or the broker refused, scheduled for another attempt. */
  retried: number;
  /** Events that used their last attempt and are now `failed`. */
  failed: number;
  /** Events left pending for the broker (it is out), attempts not used up. */
  awaitingBroker: number;
}

/** A claim is renewed once a tenth of its lease has passed since it was taken or last renewed. */
const renewEvery = 10;

/**
 * Delivers outbox events to in-process subscribers and, given a `relay`, to a broker (each event
 * delivered once both are done; docs/events.md#relaying-to-a-broker). `start()` checks the outbox and returns; in
 * the background the bus then delivers what is pending (events committed before a crash or a
 * restart), delivers each transaction's events right after it commits, and polls for retries and
 * for events other processes recorded. One pass runs at a time, so this process delivers in
 * recording order: an event recorded while the backlog is worked through comes after it.
 *
 * @example
 * interface AppEvents { ProductCreated: { id: string; name: string; price: number } }
 * const bus = new EventBus<AppEvents>({ knex, logger });
 * bus.on('ProductCreated', (e) => logger.info(e.payload, 'product created'));
 * await bus.start();
 */
export class EventBus<Events extends object = EventMap> {
  private readonly options: ResolvedEventBusOptions;
  private readonly handlers = new Map<string, EventHandler[]>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Set from `start()` until `stop()`; a start whose run was replaced meanwhile gives up. */
  private run: object | undefined;
  private stopping: Promise<void> | undefined;
  private running: Promise<DispatchSummary> | undefined;
  private rerun = false;
  /** Set by `stop()`: the pass in progress ends after the event in flight. */
  private halting = false;
  /** Publishes through the relay, when there is one, pausing while the broker is out. */
  private readonly gate: RelayGate | undefined;
  private stopRelayListener: (() => void) | undefined;

  constructor(options: EventBusOptions) {
    this.options = resolveEventBusOptions(options);
    this.gate = this.options.relay && new RelayGate(this.options.relay, this.options);
  }

  /** The broker relay every event also goes to, when one was given. */
  get relay(): EventRelay | undefined {
    return this.options.relay;
  }

  /** Registers `handler` for events named `name`; returns a function removing it. */
  on<Name extends keyof Events & string>(
    name: Name,
    handler: EventHandler<Name, Events[Name]>,
  ): () => void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as EventHandler);
    this.handlers.set(name, list);
    return () => {
      const index = list.indexOf(handler as EventHandler);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /**
   * Checks that the outbox can be read, then returns without delivering anything: pending events
   * are delivered in the background (await `dispatchPending()` to wait for them), then each
   * commit's events as it ends, until `stop()`. A slow backlog, or rows another process has
   * claimed, never hold up the caller; delivery failures are logged, never thrown.
   */
  async start(): Promise<void> {
    await this.stopping;
    if (this.run) return;
    const run = {};
    this.run = run;
    const { relay } = this.options;
    try {
      // An unreachable outbox (no migration, database down) should fail the app's start-up,
      // not leave a timer logging the same error every second.
      await probeOutbox(this.options.knex, this.options.table);
      // Loads the broker's client (a missing package fails the start-up) and connects in the
      // background: the app starts and serves with the broker down.
      await relay?.start();
    } catch (error) {
      if (this.run === run) this.run = undefined;
      throw error;
    }
    if (this.run !== run) return;
    this.stopRelayListener = relay?.onReady(() => {
      // Back from an outage: the backlog goes out now, not when the back-off ends.
      this.gate?.reopen();
      if (this.run) this.kick();
    });
    this.unsubscribe = onEventsCommitted(this.options.knex, () => this.kick());
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    // A timer alone must not keep a finished process (a CLI, a test run) alive.
    this.timer.unref();
    this.kick();
  }

  /**
   * Stops polling and waits for the delivery in flight, if any. Events the bus had claimed but not
   * yet handed to a subscriber are released, due at once for the next start or another process.
   */
  stop(): Promise<void> {
    const wasRunning = this.run !== undefined;
    this.run = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.stopRelayListener?.();
    this.stopRelayListener = undefined;
    this.rerun = false;
    // The relay closes after the publish in flight has settled its row.
    const closeRelay = async () => {
      if (!wasRunning) return;
      await this.options.relay?.stop().catch((error: unknown) => {
        this.options.logger?.warn({ err: safeError(error) }, 'events: closing the relay failed');
      });
    };
    if (!this.running) return Promise.resolve(closeRelay());
    this.halting = true;
    const stopping = this.running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(closeRelay);
    this.stopping = stopping;
    void stopping.then(() => {
      if (this.stopping === stopping) this.stopping = undefined;
    });
    return stopping;
  }

  /**
   * Delivers every due event now and resolves when none is left. Calls made while a pass runs
   * join it (and cause one more pass), so one process never delivers the same event twice; after
   * `start()`, awaiting it waits for the backlog. A `stop()` ends the pass after the event in
   * flight.
   */
  dispatchPending(): Promise<DispatchSummary> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    const pass = async (): Promise<DispatchSummary> => {
      const total: DispatchSummary = { delivered: 0, retried: 0, failed: 0, awaitingBroker: 0 };
      do {
        this.rerun = false;
        while (!this.halting) {
          const batch = await this.dispatchBatch();
          total.delivered += batch.delivered;
          total.retried += batch.retried;
          total.failed += batch.failed;
          total.awaitingBroker += batch.awaitingBroker;
          if (batch.claimed < this.options.batchSize) break;
        }
      } while (this.rerun && !this.halting);
      return total;
    };
    this.running = pass().finally(() => {
      this.running = undefined;
      this.halting = false;
    });
    return this.running;
  }

  private kick(): void {
    this.dispatchPending().catch((error: unknown) => {
      this.options.logger?.error(
        { err: safeError(error) },
        'events: dispatching the outbox failed',
      );
    });
  }

  private async dispatchBatch(): Promise<DispatchSummary & { claimed: number }> {
    const { knex, table, leaseMs, batchSize, logger } = this.options;
    let leasedAt = Date.now();
    const claim = await claimDue(knex, {
      table,
      now: leasedAt,
      leaseMs,
      batchSize,
      unhandledOnly: this.gate?.paused() ?? false,
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
      if (this.halting) {
        await releaseClaim(
          knex,
          table,
          claim.token,
          claim.rows.slice(index).map((left) => left.id),
          Date.now(),
        );
        logger?.debug(
          { left: claim.rows.length - index },
          'events: stopping, claimed events left pending',
        );
        break;
      }
      // The whole batch was leased at once; a slow backlog can outlast that lease. Renewing
      // between deliveries keeps every delivery shorter than 9/10 of the lease covered.
      if (Date.now() - leasedAt >= leaseMs / renewEvery) {
        leasedAt = Date.now();
        held = await renewClaim(
          knex,
          table,
          claim.token,
          claim.rows.slice(index).map((left) => left.id),
          leasedAt,
          leaseMs,
        );
      }
      if (held && !held.has(String(row.id))) continue;
      const context = { options: this.options, gate: this.gate, deliver: this.deliver.bind(this) };
      summary[await attemptDelivery(context, row, claim.token)] += 1;
    }
    return summary;
  }

  /** Runs every subscriber of the event; resolves to the first error, or undefined. */
  private async deliver(event: OutboxEvent): Promise<unknown> {
    const handlers = [...(this.handlers.get(event.name) ?? [])];
    if (handlers.length === 0) {
      this.options.logger?.debug({ eventId: event.id, event: event.name }, 'events: no subscriber');
    }
    let failure: { error: unknown } | undefined;
    for (const handler of handlers) {
      try {
        await handler(event);
      } catch (error) {
        failure ??= { error };
      }
    }
    return failure ? (failure.error ?? new Error('a subscriber threw undefined')) : undefined;
  }
}
