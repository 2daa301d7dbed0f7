// `listHandler`: an Express handler doing parse + run + respond, so a hand-written list route is
// one line. `Prefer: count=exact|estimated|none` chooses the count (`Preference-Applied` says so;
// an exact count is bounded at the resource's `exactCountMax`). Bad input answers 400
// problem+json; a database that does not answer in time answers
// 503 with Retry-After; any other database failure answers a 500 problem that never carries the
// SQL error text. Both are logged by their codes and statement, never their values.
import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { answerDatabaseUnavailable } from '../database/index.js';
import { problemDetails, ProblemError, requestQuery, sendProblem } from '../http/index.js';
import { safeError, recordFailedStatements } from '../logging/index.js';
import type { ListCaller } from './collections.js';
import { preferredCount } from './count.js';
import { parseListQuery, type ParseListQueryOptions } from './parse.js';
import type { ListResource } from './resource.js';
import { runListQuery, type RunListQueryOptions } from './run.js';

/** A pino-compatible logger. */
export interface ListLogger {
  error(obj: object, msg?: string): void;
}

/** Options of `listHandler`. */
export interface ListHandlerOptions
  extends ParseListQueryOptions, Omit<RunListQueryOptions, 'scope' | 'principal' | 'caller'> {
  /** A per-request base restriction, e.g. the caller's rows only. @default none */
  scope?: (qb: Knex.QueryBuilder, req: Request) => void;
  /**
   * The caller, for relations and collections of tenant and owned tables: only the rows of its
   * tenant, and its own of owned tables (unless it holds a bypass role), are joined, listed,
   * filtered and searched (the crud area's `callerOf`). @default anonymous
   */
  caller?: (req: Request) => ListCaller;
  /** The caller's principal alone, when `caller` is not given. @default anonymous ('') */
  principal?: (req: Request) => string;
  /** Receives database failures (the client only sees a generic 500). @default none */
  logger?: ListLogger;
}

function isKnex(value: unknown): value is Knex {
  return (
    typeof value === 'function' && 'client' in value && typeof (value as Knex).raw === 'function'
  );
}

/**
 * An Express handler answering `GET` on a list route with a `PagedResponse`.
 *
 * @example
 * router.get('/v1/products', listHandler(products, knex));
 * router.get('/v1/orders', listHandler(orders, (req) => req.app.locals.knex, {
 *   scope: (qb, req) => qb.where('orders.owned_by', req.user.id),
 * }));
 */
export function listHandler<Dto>(
  resource: ListResource<Dto>,
  knex: Knex | ((req: Request) => Knex),
  options: ListHandlerOptions = {},
): RequestHandler {
  return async function listRoute(req, res) {
    try {
      const query = parseListQuery(resource as ListResource<unknown>, requestQuery(req), options);
      // The 500 log then names the failed statement (placeholders, never values).
      const db = recordFailedStatements(isKnex(knex) ? knex : knex(req));
      const scope = options.scope;
      // The client's `Prefer: count=...` wins over the route's and the resource's choice.
      const preferred = preferredCount(req.headers.prefer);
      const count = preferred ?? options.count;
      // A client's exact count is bounded, so a request cannot make the list count a huge table.
      const exactCountMax =
        options.exactCountMax ?? (preferred === 'exact' ? resource.exactCountMax : undefined);
      const page = await runListQuery(db, resource, query, {
        ...(count ? { count } : {}),
        ...(exactCountMax !== undefined ? { exactCountMax } : {}),
        ...(options.cursorSecret !== undefined ? { cursorSecret: options.cursorSecret } : {}),
        ...(options.deferredJoinFrom !== undefined
          ? { deferredJoinFrom: options.deferredJoinFrom }
          : {}),
        ...(scope ? { scope: (qb) => scope(qb, req) } : {}),
        ...(options.caller ? { caller: options.caller(req) } : {}),
        ...(options.principal ? { principal: options.principal(req) } : {}),
      });
      res.vary('Prefer');
      if (preferred) {
        // An exact count past its cap answered the estimate: say so (RFC 7240).
        const capped = preferred === 'exact' && page.totalItemCountKind !== 'exact';
        res.set('Preference-Applied', `count=${capped ? 'estimated' : preferred}`);
      }
      res.status(200).json(page);
    } catch (error) {
      if (error instanceof ProblemError) {
        sendProblem(res, error.toProblem(req.originalUrl));
        return;
      }
      options.logger?.error({ err: safeError(error) }, 'list query failed');
      if (answerDatabaseUnavailable(error, req, res)) return;
      sendProblem(
        res,
        problemDetails('http.internal_error', {
          detail: 'the list could not be read; the server log has the details',
          instance: req.originalUrl,
        }),
      );
    }
  };
}
