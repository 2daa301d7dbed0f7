// `EventBus`: typed subscribers by event name, fed from the outbox after commit, at least once.
import { safeError } from '../logging/index.js';
import { attemptDelivery, type AttemptContext } from './attempt.js';
import { deliverClaimed } from './claimed.js';
import { probeOutbox } from './claim.js';
import { DeliveredRows } from './delivered.js';
import { LocalEvents } from './local.js';
import {
  resolveEventBusOptions,
  type EventBusOptions,
  type ResolvedEventBusOptions,
} from './options.js';
import { Poller } from './poll.js';
import { RelayGate } from './relay-gate.js';
import type { EventRelay } from './relay.js';
import type { DispatchSummary, EventMap, OutboxEvent } from './types.js';

export type EventHandler<Name extends string = string, Payload = unknown> = (
  event: OutboxEvent<Name, Payload>,
) => void | Promise<void>;

const emptySummary = (): DispatchSummary => ({
  delivered: 0,
  retried: 0,
  failed: 0,
  awaitingBroker: 0,
});
function addUp(total: DispatchSummary, part: DispatchSummary): void {
  total.delivered += part.delivered;
  total.retried += part.retried;
  total.failed += part.failed;
  total.awaitingBroker += part.awaitingBroker;
}

/**
 * Delivers outbox events to in-process subscribers and, given a `relay`, to a broker (each event
 * delivered once both are done; docs/events.md#relaying-to-a-broker). `start()` checks the outbox
 * and returns; in the background the bus then delivers what is pending (events committed before a
 * crash or a restart), delivers the events this process records right after their commit, from
 * memory (they are recorded leased to it), marks them delivered in batches, and polls, backing off
 * while nothing is pending, for retries and for events no running bus of this process recorded.
 * One pass runs at a time, so this process delivers in recording order: an event recorded while
 * the backlog is worked through comes after it.
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
  /** Set from `start()` until `stop()`; a start whose run was replaced meanwhile gives up. */
  private run: object | undefined;
  private stopping: Promise<void> | undefined;
  private running: Promise<DispatchSummary> | undefined;
  private rerun = false;
  /** What the next pass must do beyond the local queue: claim due rows, mark delivered ones. */
  private wanted = { claim: false, flush: false };
  /** Set by `stop()`: the pass in progress ends after the event in flight. */
  private halting = false;
  /** Publishes through the relay, when there is one, pausing while the broker is out. */
  private readonly gate: RelayGate | undefined;
  private stopRelayListener: (() => void) | undefined;
  private readonly local: LocalEvents;
  private readonly delivered: DeliveredRows;
  private readonly poller: Poller;
  private readonly context: AttemptContext;

  constructor(options: EventBusOptions) {
    this.options = resolveEventBusOptions(options);
    const { knex, table, leaseMs, batchSize, settleDelayMs, logger } = this.options;
    this.gate = this.options.relay && new RelayGate(this.options.relay, this.options);
    this.local = new LocalEvents({ knex, table, leaseMs, capacity: batchSize * 20 }, (claim) =>
      this.kick(claim),
    );
    this.delivered = new DeliveredRows({ knex, table, delayMs: settleDelayMs, batchSize, logger });
    this.poller = new Poller(
      {
        knex,
        table,
        minMs: this.options.pollIntervalMs,
        maxMs: this.options.maxPollIntervalMs,
        logger,
      },
      () => this.pass({ claim: true }),
    );
    this.context = {
      options: this.options,
      gate: this.gate,
      deliver: this.deliver.bind(this),
      delivered: this.delivered,
    };
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
      if (this.run) this.kick(true);
    });
    this.local.open();
    this.poller.start();
    this.kick(true);
  }

  /**
   * Stops polling and waits for the delivery in flight, if any. Events the bus had claimed but not
   * yet handed to a subscriber are released, due at once for the next start or another process;
   * delivered ones are marked.
   */
  stop(): Promise<void> {
    const wasRunning = this.run !== undefined;
    this.run = undefined;
    // Events committed from now on are handed back at once, due for whoever runs next.
    this.local.close();
    this.poller.stop();
    this.stopRelayListener?.();
    this.stopRelayListener = undefined;
    this.rerun = false;
    if (this.running) this.halting = true;
    const settle = async () => {
      await (this.running ?? Promise.resolve()).then(
        () => undefined,
        () => undefined,
      );
      await this.local.release().catch((error: unknown) => {
        this.options.logger?.warn({ err: safeError(error) }, 'events: releasing events failed');
      });
      await this.delivered.flush();
      // The relay closes after the publish in flight has settled its row.
      if (!wasRunning) return;
      await this.options.relay?.stop().catch((error: unknown) => {
        this.options.logger?.warn({ err: safeError(error) }, 'events: closing the relay failed');
      });
    };
    const stopping = settle();
    this.stopping = stopping;
    void stopping.then(() => {
      if (this.stopping === stopping) this.stopping = undefined;
    });
    return stopping;
  }

  /**
   * Delivers every due event now and resolves when none is left, delivered ones marked. Calls
   * made while a pass runs join it (and cause one more pass), so one process never delivers the
   * same event twice; after `start()`, awaiting it waits for the backlog. A `stop()` ends the
   * pass after the event in flight.
   */
  dispatchPending(): Promise<DispatchSummary> {
    return this.pass({ claim: true, flush: true });
  }

  private pass(want: { claim?: boolean; flush?: boolean }): Promise<DispatchSummary> {
    this.wanted.claim ||= want.claim ?? false;
    this.wanted.flush ||= want.flush ?? false;
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    const pass = async (): Promise<DispatchSummary> => {
      const total = emptySummary();
      do {
        this.rerun = false;
        const claim = this.wanted.claim || this.local.takeOverflow();
        this.wanted.claim = false;
        while (claim && !this.halting) {
          const batch = await deliverClaimed(this.context, () => this.halting);
          addUp(total, batch);
          if (batch.claimed < this.options.batchSize) break;
        }
        // This process's own events, committed meanwhile: after the older due ones.
        while (!this.halting) {
          const next = await this.local.next();
          if (!next) break;
          if (this.halting) {
            this.local.putBack(next);
            break;
          }
          total[await attemptDelivery(this.context, next.row, next.token)] += 1;
        }
        // Rows recorded for the claim while memory was full: claimed now that the queue is empty.
        if (!this.halting && this.local.overflowWaiting()) this.rerun = true;
        if (!this.rerun && !this.halting && this.wanted.flush) {
          this.wanted.flush = false;
          await this.delivered.flush();
        }
      } while (this.rerun && !this.halting);
      // A retry or an event waiting for the broker is the poller's to pick up when due.
      if (total.retried + total.awaitingBroker > 0) this.poller.hurry();
      return total;
    };
    this.running = pass().finally(() => {
      this.running = undefined;
      // Asked for after the last check of the pass: one more, or a commit's events would wait.
      const again = this.rerun && !this.halting;
      this.halting = false;
      if (again) this.kick(this.wanted.claim);
    });
    return this.running;
  }

  private kick(claim: boolean): void {
    if (!this.run && !claim) return;
    this.pass({ claim }).catch((error: unknown) => {
      this.options.logger?.error(
        { err: safeError(error) },
        'events: dispatching the outbox failed',
      );
    });
  }

  /** Runs every subscriber of the event; resolves to the first error, or undefined. */
  private async deliver(event: OutboxEvent): Promise<unknown> {
    const handlers = this.handlers.get(event.name);
    if (!handlers || handlers.length === 0) {
      this.options.logger?.debug({ eventId: event.id, event: event.name }, 'events: no subscriber');
      return undefined;
    }
    let failure: { error: unknown } | undefined;
    for (const handler of handlers.length === 1 ? handlers : [...handlers]) {
      try {
        await handler(event);
      } catch (error) {
        failure ??= { error };
      }
    }
    return failure ? (failure.error ?? new Error('a subscriber threw undefined')) : undefined;
  }
}
