// Counting a list: `exact` (COUNT(*)), `estimated` (the database's estimate, exact below a
// threshold) or `none`; and the client's choice of them by `Prefer: count=...` (RFC 7240).
import type { Knex } from 'knex';
import type { ListQueryDialect, ListStatementRunner } from '../sql/index.js';
import { estimatedTotal } from './estimates.js';
import { CountModes, type CountMode, type TotalItemCountKind } from './types.js';

/** What a page says of the number of matching rows. */
export interface Total {
  count: number | null;
  kind: TotalItemCountKind | null;
}

/** What the page query showed: how many rows it kept, whether one more exists, its offset. */
export interface PageSeen {
  rows: number;
  more: boolean;
  /** Undefined for a page chosen by cursor (its position is not known). */
  offset: number | undefined;
}

/** `SELECT count(*)` over at most `max + 1` of `rows`: exact up to `max`, more past it. */
async function boundedCount(
  knex: Knex,
  rows: Knex.QueryBuilder,
  max: number,
  run: ListStatementRunner,
): Promise<number> {
  const bounded = knex.count({ total: '*' }).from(
    rows
      .clone()
      .limit(max + 1)
      .as('bounded'),
  );
  const [result] = (await run(bounded)) as { total?: unknown }[];
  return Number(result?.total ?? 0);
}

/**
 * The total for `mode`. Costs no query when the page shows where the list ends (a page by number
 * that is partly filled, or an empty first page); otherwise one `COUNT(*)`, or for `estimated`
 * the dialect's estimate, reused for the same rows within a second (estimates.ts), and a
 * `COUNT(*)` only when that is below `threshold` (a count past it is reused as the estimate).
 * With `max`, an exact count reads at most `max + 1` rows: past `max` the total is the
 * dialect's estimate (or a lower bound where the database has none), never a full count.
 */
export async function countTotal(
  mode: CountMode,
  seen: PageSeen,
  /** Build the `COUNT(*)` query and the `SELECT 1` over the same rows (when one is run). */
  queries: { count: () => Knex.QueryBuilder; rows: () => Knex.QueryBuilder },
  context: {
    knex: Knex;
    dialect: ListQueryDialect;
    threshold: number;
    run: ListStatementRunner;
    max?: number | undefined;
  },
): Promise<Total> {
  if (mode === 'none') return { count: null, kind: null };
  const { offset } = seen;
  if (offset !== undefined && !seen.more && (seen.rows > 0 || offset === 0)) {
    return { count: offset + seen.rows, kind: 'exact' };
  }
  const { knex, dialect, threshold, run, max } = context;
  // Never fewer than the rows the page has already shown to exist.
  const shown =
    offset === undefined || seen.rows === 0 ? 0 : offset + seen.rows + (seen.more ? 1 : 0);
  const countAll = async () => {
    const [result] = (await run(queries.count())) as { total?: unknown }[];
    return Number(result?.total ?? 0);
  };
  if (mode === 'estimated') {
    const total = await estimatedTotal(knex, dialect, queries.rows(), threshold, run, countAll);
    return total.kind === 'exact'
      ? total
      : { count: Math.max(total.count, shown), kind: total.kind };
  }
  if (max === undefined || !Number.isSafeInteger(max)) {
    return { count: await countAll(), kind: 'exact' };
  }
  const rows = queries.rows();
  const counted = await boundedCount(knex, rows, max, run);
  if (counted <= max) return { count: counted, kind: 'exact' };
  // Past the cap: at least max + 1 rows; the estimate where the database keeps one (threshold 0
  // asks for it whatever its size; SQLite's answer is a 1-row lower bound, below max + 1).
  const estimate = await dialect.estimateCount(knex, rows, 0, run);
  return {
    count: Math.max(estimate?.count ?? 0, counted, shown),
    kind: estimate?.kind === 'estimated' ? 'estimated' : 'lowerBound',
  };
}

/**
 * The count mode a `Prefer` header asks for (`Prefer: count=estimated`), if it names one this
 * engine has; RFC 7240 has a server ignore a preference it does not know.
 *
 * @example
 * preferredCount('return=minimal, count=none'); // 'none'
 */
export function preferredCount(
  header: string | readonly string[] | undefined,
): CountMode | undefined {
  const values = typeof header === 'string' ? [header] : (header ?? []);
  for (const preference of values.flatMap((value) => value.split(','))) {
    const [token, value] = (preference.split(';')[0] ?? '').split('=');
    if (token?.trim().toLowerCase() !== 'count' || value === undefined) continue;
    const mode = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if ((CountModes as readonly string[]).includes(mode)) return mode as CountMode;
  }
  return undefined;
}
