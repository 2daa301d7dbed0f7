// `runListQuery`: runs a parsed list query and shapes the `PagedResponse`. Counting costs at most
// one extra query, and none when the page itself shows where the list ends.
import type { Knex } from 'knex';
import { buildListQueries, type ListQueryBuildOptions } from './compile.js';
import { dialectFor } from '../sql/dialects/index.js';
import type { ListResource } from './resource.js';
import { loadCollections } from './related.js';
import type { ListQuery, PagedResponse } from './types.js';

/** Options of `runListQuery`. */
export interface RunListQueryOptions extends ListQueryBuildOptions {
  /**
   * `exact`: `totalItemCount` is the full count (one `COUNT(*)` query, skipped when the page is
   * partly filled). `none`: no count; one extra row is fetched to tell whether a next page exists,
   * and `totalItemCount` / `pageCount` are null. Use it on very large tables.
   * @default 'exact'
   */
  count?: 'exact' | 'none';
}

type Row = Record<string, unknown>;

function withConnection<T>(qb: Knex.QueryBuilder, connection: unknown): Promise<T> {
  return (connection ? qb.connection(connection) : qb) as unknown as Promise<T>;
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
  const counting = (options.count ?? 'exact') === 'exact';
  const { page, count } = buildListQueries(knex, resource as ListResource<unknown>, query, {
    ...options,
    extraRows: counting ? 0 : 1,
  });
  // A connection of its own where the engine's SQL functions must exist on it (SQLite).
  const client = knex.client as { releaseConnection(connection: unknown): Promise<unknown> };
  const connection = await dialectFor(knex).functionsConnection(knex);
  try {
    const rows = await withConnection<Row[]>(page, connection);
    const offset = (query.pageNumber - 1) * query.pageSize;
    let total: number | null = null;
    let hasNextPage: boolean;
    if (counting) {
      if (rows.length < query.pageSize && (rows.length > 0 || offset === 0)) {
        total = offset + rows.length; // the page itself shows where the list ends
      } else {
        const [result] = await withConnection<Row[]>(count, connection);
        total = Number(result?.total ?? 0);
      }
      hasNextPage = offset + rows.length < total;
    } else {
      hasNextPage = rows.length > query.pageSize;
      if (hasNextPage) rows.length = query.pageSize;
    }
    await loadCollections(knex, resource as ListResource<unknown>, rows, {
      connection,
      ...(options.principal !== undefined ? { principal: options.principal } : {}),
    });
    return {
      items: rows.map((row) => resource.toDto(row)),
      pageCount: total === null ? null : Math.ceil(total / query.pageSize),
      pageNumber: query.pageNumber,
      pageSize: query.pageSize,
      totalItemCount: total,
      hasNextPage,
      hasPreviousPage: query.pageNumber > 1,
    };
  } finally {
    if (connection) await client.releaseConnection(connection);
  }
}
