// Hands the events a transaction recorded to a running bus of this process once the transaction
// commits, so they are delivered from memory instead of being read back from the outbox.
import type { Knex } from 'knex';
import type { OutboxRow } from './claim.js';

/**
 * A running bus's way in for the events this process records on its database. The rows are
 * inserted already leased to it (`token`, `available_at` = now + `leaseMs`), so no other process
 * claims them while this one delivers them from memory; if this process dies first, the lease
 * runs out and another delivers them.
 */
export interface LocalOutlet {
  readonly table: string;
  readonly token: string;
  readonly leaseMs: number;
  /** False while its queue is full: the events are recorded due at once, for the poller. */
  wants(): boolean;
  /** Called after the commit with the committed rows (ids included), in recording order. */
  accept(token: string, rows: OutboxRow[]): void;
  /** Called when an event was recorded without a lease (queue full), due for the poller. */
  missed(): void;
}

/**
 * Outlets keyed by the Knex client config object. A transaction's client is a copy of its
 * parent's that shares the same `config` object, so the key reaches from a `trx` back to the
 * buses started on the root `knex`, without the caller passing the bus around.
 */
const outlets = new WeakMap<object, LocalOutlet[]>();

function keyOf(knex: Knex): object {
  return (knex.client as { config: object }).config;
}

/** Registers a running bus's outlet on `knex`'s database; returns a function removing it. */
export function openOutlet(knex: Knex, outlet: LocalOutlet): () => void {
  const key = keyOf(knex);
  let list = outlets.get(key);
  if (!list) {
    list = [];
    outlets.set(key, list);
  }
  list.push(outlet);
  return () => {
    const index = list.indexOf(outlet);
    if (index >= 0) list.splice(index, 1);
  };
}

/**
 * The outlet that events recorded through `knex` into `table` go to: the first bus started on the
 * same database and table in this process (several buses there share one outbox, and an event is
 * one bus's to deliver), or undefined when none runs.
 */
export function outletFor(knex: Knex, table: string): LocalOutlet | undefined {
  const list = outlets.get(keyOf(knex));
  if (!list) return undefined;
  for (const outlet of list) if (outlet.table === table) return outlet;
  return undefined;
}

interface TransactorLike {
  isTransaction?: boolean;
  executionPromise?: Promise<unknown>;
  parentTransaction?: TransactorLike;
}

/**
 * Runs `then` once the outermost transaction of `knex` has committed (at once, outside one); never
 * after a rollback, whose rows are gone.
 */
export function afterCommit(knex: Knex, then: () => void): void {
  let trx = knex as unknown as TransactorLike;
  if (!trx.isTransaction) {
    then();
    return;
  }
  // A savepoint "commits" when released, but its rows are only visible once the outermost
  // transaction commits, so wait for that one.
  while (trx.parentTransaction) trx = trx.parentTransaction;
  // A failed COMMIT rejects: the rows may or may not be there; if they are, their lease runs out
  // and the poller delivers them.
  trx.executionPromise?.then(then, () => undefined);
}

const listeners = new WeakMap<object, Set<() => void>>();

/** Calls `listener` after each commit that recorded events through `knex` (or its transactions). */
export function onEventsCommitted(knex: Knex, listener: () => void): () => void {
  const key = keyOf(knex);
  let set = listeners.get(key);
  if (!set) {
    set = new Set();
    listeners.set(key, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

/** Calls the `onEventsCommitted` listeners of `knex`'s database after its transaction commits. */
export function notifyAfterCommit(knex: Knex): void {
  const set = listeners.get(keyOf(knex));
  if (!set || set.size === 0) return;
  afterCommit(knex, () => {
    for (const listener of set) listener();
  });
}
