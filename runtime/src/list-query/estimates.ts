// The database's row estimates, reused for a moment: a list whose count is `estimated` asks the
// planner (`EXPLAIN`) before each page, and the planner's answer for the same rows changes only
// as the table does, so the same list asked again within a second reuses it instead of sending
// the `EXPLAIN` again.
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import type { CountEstimate, ListQueryDialect, ListStatementRunner } from '../sql/index.js';

/** How long an estimate is reused for the same rows of the same database. */
export const ESTIMATE_MAX_AGE_MS = 1_000;
/** Estimates kept per database; the oldest goes first. */
export const ESTIMATES_KEPT = 500;

interface Kept {
  readonly at: number;
  readonly estimate: CountEstimate | undefined;
}

/**
 * Estimates by statement (its SQL, its values and the threshold): only the planner's estimates,
 * and the answer that the rows are too few to estimate (the caller then counts them exactly, so
 * a stale "too few" costs a count, never a wrong total). A total answered as a lower bound or an
 * exact count (SQLite's) is not kept.
 */
export class EstimateCache {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly maxAgeMs = ESTIMATE_MAX_AGE_MS,
    private readonly capacity = ESTIMATES_KEPT,
    // A monotonic clock: a system clock set back would keep an estimate for as long.
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The estimate for `key` asked within the last `maxAgeMs`, or asks `estimate` and keeps it. */
  async reuse(
    key: string,
    estimate: () => Promise<CountEstimate | undefined>,
  ): Promise<CountEstimate | undefined> {
    const at = this.now();
    const kept = this.kept.get(key);
    if (kept && at - kept.at < this.maxAgeMs) return kept.estimate;
    const fresh = await estimate();
    if (fresh === undefined || fresh.kind === 'estimated') {
      this.kept.delete(key);
      if (this.kept.size >= this.capacity) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(key, { at, estimate: fresh });
    }
    return fresh;
  }
}

/**
 * One cache per Knex instance (its client): two databases never share an estimate. A transaction
 * has a client of its own, so a list read in one asks each time.
 */
const caches = new WeakMap<object, EstimateCache>();

/**
 * Sets how long `knex`'s estimates are reused, 0 for never: for measuring the estimate itself
 * (bench/list-limits.ts), or a test that must see the planner's latest answer.
 */
export function reuseEstimates(knex: Knex, maxAgeMs: number): void {
  caches.set(knex.client as object, new EstimateCache(maxAgeMs));
}

/** `dialect.estimateCount` for `rows`, reused for the same statement within a second. */
export function estimateCount(
  knex: Knex,
  dialect: ListQueryDialect,
  rows: Knex.QueryBuilder,
  threshold: number,
  run: ListStatementRunner,
): Promise<CountEstimate | undefined> {
  const client = knex.client as object;
  let cache = caches.get(client);
  if (!cache) caches.set(client, (cache = new EstimateCache()));
  const { sql, bindings } = rows.toSQL();
  const key = JSON.stringify([threshold, sql, bindings], (_, value: unknown) =>
    typeof value === 'bigint' ? `${value}n` : value,
  );
  return cache.reuse(key, () => dialect.estimateCount(knex, rows, threshold, run));
}
