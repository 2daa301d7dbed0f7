// The database's row estimates, reused for a moment: a list whose count is `estimated` asks the
// planner (`EXPLAIN`) before each page, and the planner's answer for the same rows changes only
// as the table does, so the same list asked again within a second reuses it instead of sending
// the `EXPLAIN` again (or the `COUNT(*)` that an estimate found too low sent).
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
 * Totals by statement (its SQL, its values and the threshold): the planner's estimates, and the
 * answer that the rows are too few to estimate. Too few, the rows are counted; a count that
 * finds more rows than the threshold (the planner's estimate was too low: InnoDB caps a range's
 * at half the table) stands in for the estimate for the next second, so the next page sends
 * neither the `EXPLAIN` nor the `COUNT(*)`. A total answered as a lower bound (SQLite's) is not
 * kept, nor a count within the threshold: those rows are counted each time, exactly.
 */
export class EstimateCache {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly maxAgeMs = ESTIMATE_MAX_AGE_MS,
    private readonly capacity = ESTIMATES_KEPT,
    // A monotonic clock: a system clock set back would keep an estimate for as long.
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The total of the rows of `key`: the estimate asked within the last `maxAgeMs`, or `estimate`
   * asked now; where that says the rows are too few (undefined), `count` counted now, exactly.
   */
  async total(
    key: string,
    threshold: number,
    estimate: () => Promise<CountEstimate | undefined>,
    count: () => Promise<number>,
  ): Promise<CountEstimate> {
    const at = this.now();
    const kept = this.kept.get(key);
    let found: CountEstimate | undefined;
    if (kept && at - kept.at < this.maxAgeMs) {
      found = kept.estimate;
    } else {
      found = await estimate();
      if (found === undefined || found.kind === 'estimated') this.keep(key, at, found);
    }
    if (found) return found;
    const counted = await count();
    if (counted > threshold) this.keep(key, at, { count: counted, kind: 'estimated' });
    return { count: counted, kind: 'exact' };
  }

  private keep(key: string, at: number, estimate: CountEstimate | undefined): void {
    this.kept.delete(key);
    if (this.kept.size >= this.capacity) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, { at, estimate });
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

/**
 * The total of an `estimated` count of `rows`: `dialect.estimateCount`, reused for the same
 * statement within a second; below `threshold`, `count` (an exact `COUNT(*)`).
 */
export function estimatedTotal(
  knex: Knex,
  dialect: ListQueryDialect,
  rows: Knex.QueryBuilder,
  threshold: number,
  run: ListStatementRunner,
  count: () => Promise<number>,
): Promise<CountEstimate> {
  const client = knex.client as object;
  let cache = caches.get(client);
  if (!cache) caches.set(client, (cache = new EstimateCache()));
  const { sql, bindings } = rows.toSQL();
  const key = JSON.stringify([threshold, sql, bindings], (_, value: unknown) =>
    typeof value === 'bigint' ? `${value}n` : value,
  );
  return cache.total(
    key,
    threshold,
    () => dialect.estimateCount(knex, rows, threshold, run),
    count,
  );
}
