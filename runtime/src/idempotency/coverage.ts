// Which requests the guard covers: those of one route (`requiredIdempotentKey()` in its handler
// list), or those of a router group whose method is listed (`requiredIdempotentKey(router, ...)`,
// plain router-level middleware, so it sees the routes registered after it, nested routers
// included, as any middleware does).
import { METHODS } from 'node:http';
import type { Application, NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { guardRequest } from './guard.js';

/** The guard of one route: the route's template is part of the key's endpoint. */
const idempotentRoute: RequestHandler = (req, res, next) => guardRequest(req, res, next, 'route');

/** Protects one route: put it in the route's handler list, after any authentication. */
export function requiredIdempotentKey(): RequestHandler;
/**
 * Protects the requests of `group` (a router, or the app itself) whose method is listed
 * (case-insensitive; default POST only): it adds router-level middleware to `group` at this point,
 * so it covers the routes registered after it, and the routers mounted after it at any depth.
 *
 * @example
 * const orders = express.Router();
 * orders.use(authenticate());
 * requiredIdempotentKey(orders, 'POST', 'DELETE');
 * orders.post('/', createOrder);
 * app.use('/orders', orders);
 */
export function requiredIdempotentKey<G extends Router | Application>(
  group: G,
  ...methods: string[]
): G;
export function requiredIdempotentKey(group?: Router, ...methods: string[]): unknown {
  if (group === undefined) return idempotentRoute;
  const verbs = new Set((methods.length > 0 ? methods : ['POST']).map((m) => m.toUpperCase()));
  const unknown = [...verbs].find((verb) => !METHODS.includes(verb))?.toLowerCase();
  if (unknown) throw new TypeError(`requiredIdempotentKey: unknown HTTP method ${unknown}`);
  group.use(function idempotentGroup(req: Request, res: Response, next: NextFunction) {
    return verbs.has(req.method) ? guardRequest(req, res, next, 'group') : next();
  });
  return group;
}
