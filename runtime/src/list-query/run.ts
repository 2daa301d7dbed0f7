// `runListQuery`: runs a parsed list query and shapes the `PagedResponse`: the page by number or
// by cursor, the cursors of the pages beside it, and the total as the count mode says.
import type { Knex } from 'knex';
import { planListQueries, type ListQueryBuildOptions } from './compile.js';
import { countTotal, type Total } from './count.js';
import { cursorMaker } from './cursor.js';
import { dialectFor } from '../sql/index.js';
import type { ListResource } from './resource.js';
import { loadCollections } from './related.js';
import { rowToDto } from './to-dto.js';
import type { CountMode, ListQuery, PagedResponse } from './types.js';

/** Options of `runListQuery`. */
export interface RunListQueryOptions extends ListQueryBuildOptions {
  /**
   * `exact`: `totalItemCount` is the full count (one `COUNT(*)` query). `estimated`: the
   * database's estimate, or an exact count when that is below the resource's `exactCountBelow`.
   * `none`: no count, `totalItemCount` / `pageCount` are null. Each skips the count when the page
   * itself shows where the list ends.
   * @default the resource's `count` ('estimated' unless its definition says otherwise)
   */
  count?: CountMode;
  /**
   * Most rows an `exact` count reads: past it `totalItemCount` is the database's estimate
   * (`totalItemCountKind` `estimated`, or `lowerBound` where it keeps none). `listHandler` sets it
   * to the resource's `exactCountMax` when the client asked `Prefer: count=exact`.
   * @default unbounded
   */
  exactCountMax?: number;
  /** The key `cursor`s are signed with (see `parseListQuery`). @default derived from the list */
  cursorSecret?: string;
}

type Row = Record<string, unknown>;

/** What `count: 'none'` answers, without a call. */
const NO_TOTAL: Total = { count: null, kind: null };

/** `statement` run on `connection`, when the engine holds one. */
function withConnection<T>(
  statement: Knex.QueryBuilder | Knex.Raw,
  connection: unknown,
): Promise<T> {
  return (connection && 'connection' in statement
    ? statement.connection(connection)
    : statement) as unknown as Promise<T>;
}

/**
 * Runs `query` and returns the page.
 *
 * @example
 * const page = await runListQuery(knex, products, parseListQuery(products, req.query), {
 *   scope: (qb) => qb.where('products.owned_by', userId),
 * });
 */
export async function runListQuery<Dto>(
  knex: Knex,
  resource: ListResource<Dto>,
  query: ListQuery,
  options: RunListQueryOptions = {},
): Promise<PagedResponse<Dto>> {
  const list = resource as ListResource<unknown>;
  // A connection of its own where the engine's SQL functions must exist on it (SQLite), taken
  // first: for a search it brings the search indexes the query is built with up to date.
  const client = knex.client as { releaseConnection(connection: unknown): Promise<unknown> };
  const dialect = dialectFor(knex);
  const connection = await dialect.functionsConnection(knex, { search: !!query.search });
  try {
    // One row more than the page tells whether another page follows.
    const plan = planListQueries(knex, list, query, { ...options, extraRows: 1 });
    const rows = await withConnection<Row[]>(plan.page, connection);
    const more = rows.length > query.pageSize;
    if (more) rows.length = query.pageSize;
    const cursor = query.cursor;
    const backward = cursor?.direction === 'previous';
    // A previous page is read nearest the cursor first.
    if (backward) rows.reverse();
    const hasNextPage = backward || more;
    const hasPreviousPage = cursor ? !backward || more : query.pageNumber > 1;
    const offset = cursor ? undefined : (query.pageNumber - 1) * query.pageSize;
    const mode = options.count ?? resource.count;
    const total =
      mode === 'none'
        ? NO_TOTAL
        : await countTotal(mode, { rows: rows.length, more: !backward && more, offset }, plan, {
            knex,
            dialect,
            threshold: resource.exactCountBelow ?? dialect.exactCountBelow,
            run: (statement) => withConnection(statement, connection),
            max: options.exactCountMax,
          });
    const cursorOf =
      (hasNextPage || hasPreviousPage) && rows.length > 0
        ? cursorMaker(list, query, options.cursorSecret)
        : undefined;
    const nextCursor = hasNextPage && cursorOf ? cursorOf(rows.at(-1)!, 'next') : null;
    const previousCursor = hasPreviousPage && cursorOf ? cursorOf(rows[0]!, 'previous') : null;
    const shown = plan.shown;
    if (shown.some((m) => m.kind === 'collection')) {
      await loadCollections(knex, list, rows, {
        connection,
        members: shown,
        caller: options.caller ?? options.principal ?? '',
      });
    }
    return {
      items: query.select
        ? rows.map((row) => rowToDto(shown, row) as Dto)
        : rows.map((row) => resource.toDto(row)),
      pageCount: total.count === null ? null : Math.ceil(total.count / query.pageSize),
      pageNumber: cursor ? null : query.pageNumber,
      pageSize: query.pageSize,
      totalItemCount: total.count,
      totalItemCountKind: total.kind,
      hasNextPage,
      hasPreviousPage,
      nextCursor,
      previousCursor,
    };
  } finally {
    if (connection) await client.releaseConnection(connection);
  }
}
