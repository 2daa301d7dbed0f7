// Wakes the running dispatchers of a database once a transaction that recorded events commits.
import type { Knex } from 'knex';

/**
 * Listeners keyed by the Knex client config object. A transaction's client is a copy of its
 * parent's that shares the same `config` object, so the key reaches from a `trx` back to the
 * dispatchers started on the root `knex`, without the caller passing the bus around.
 */
const listeners = new WeakMap<object, Set<() => void>>();

function keyOf(knex: Knex): object {
  return (knex.client as { config: object }).config;
}

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

interface TransactorLike {
  isTransaction?: boolean;
  executionPromise?: Promise<unknown>;
  parentTransaction?: TransactorLike;
}

/** Schedules a wake-up after the outermost transaction of `knex` commits (now, outside one). */
export function wakeAfterCommit(knex: Knex): void {
  const set = listeners.get(keyOf(knex));
  if (!set || set.size === 0) return;
  const wake = () => {
    for (const listener of set) listener();
  };
  let trx = knex as unknown as TransactorLike;
  if (!trx.isTransaction) {
    queueMicrotask(wake);
    return;
  }
  // A savepoint "commits" when released, but its rows are only visible once the outermost
  // transaction commits, so wait for that one.
  while (trx.parentTransaction) trx = trx.parentTransaction;
  // A rollback rejects the promise: the rows are gone, there is nothing to dispatch.
  trx.executionPromise?.then(wake, () => undefined);
}
