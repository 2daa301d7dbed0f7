// The nested route of a one-to-many (`GET /v1/customers/{id}/orders`): the child's list, with the
// whole list-query contract, scoped to one parent row, and 404 when that row does not exist or is
// not the caller's to see (an owned parent), exactly as `GET /v1/customers/{id}` would answer.
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { listHandler, type ListHandlerOptions, type ListResource } from '../list-query/index.js';
import { checkId, loadRow } from './repository.js';
import { crudRoute, principalOf } from './routes.js';
import type { EntityTable } from './table.js';

/** Options of `nestedListHandler`: the list handler's, and the parent. */
export interface NestedListOptions extends ListHandlerOptions {
  /** The parent's table: the route's `:id` must be one of its rows the caller may see. */
  parent: EntityTable<unknown>;
  /** The child's column naming the parent, qualified: `orders.customer_id`. */
  foreignKey: string;
}

/**
 * An Express handler listing the rows of `resource` that refer to the parent `req.params.id`.
 *
 * @example
 * router.get('/customers/:id/orders', nestedListHandler(orderResource, knex, {
 *   parent: customerTable, foreignKey: 'orders.customer_id', principal: principalOf,
 * }));
 */
export function nestedListHandler<Dto>(
  resource: ListResource<Dto>,
  knex: Knex,
  options: NestedListOptions,
): RequestHandler {
  const { parent, foreignKey, scope, ...rest } = options;
  const parentId = (req: Request) => checkId(parent, String(req.params.id));
  const list = listHandler(resource, knex, {
    ...rest,
    scope(qb, req) {
      qb.where(foreignKey, parentId(req));
      scope?.(qb, req);
    },
  });
  return crudRoute(async function listOfParent(req, res) {
    // 400 for a malformed id, 404 for one the caller cannot see: never an empty page.
    await loadRow(knex, parent, String(req.params.id), principalOf(req));
    await new Promise<void>((done, fail) => {
      Promise.resolve(list(req, res, (error?: unknown) => (error ? fail(error) : done())))
        .then(() => done())
        .catch(fail);
    });
  });
}
