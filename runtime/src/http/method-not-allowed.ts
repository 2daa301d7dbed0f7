// 405 for a known path asked with a method none of its routes takes (RFC 9110 section 15.5.6),
// with the `Allow` header listing the methods that path takes. The routes are read from the app's
// router when the request comes, so slices mounted in any order and routes added later count,
// and the route files need nothing of their own.
import type { Request, RequestHandler } from 'express';
import { problemDetails, sendProblem } from './problem.js';

// The parts of Express 5's router (the `router` package) read here: a layer matches a path and
// holds either a route (its methods) or a handler, which is a router when it has a stack.
interface RouteLike {
  methods: Record<string, boolean | undefined>;
}
interface LayerLike {
  route?: RouteLike;
  handle?: { stack?: unknown };
  match(path: string): false | { path: string };
}
interface StackHolder {
  stack?: unknown;
}

// Deeper than any app mounts routers; a cycle cannot keep the walk going.
const MAX_DEPTH = 16;

function layersOf(holder: StackHolder | undefined): LayerLike[] {
  return Array.isArray(holder?.stack) ? (holder.stack as LayerLike[]) : [];
}

function matched(layer: LayerLike, path: string): false | { path: string } {
  try {
    return layer.match(path);
  } catch {
    // A path the router cannot decode is answered before this (http.malformed_path).
    return false;
  }
}

// Collects into `methods` the methods of every route of `holder` whose path matches `path`;
// `'*'` for a route that takes every method (`router.all`).
function collect(holder: StackHolder | undefined, path: string, methods: Set<string>, depth = 0) {
  if (depth > MAX_DEPTH) return;
  for (const layer of layersOf(holder)) {
    const match = matched(layer, path);
    if (!match) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on) methods.add(method === '_all' ? '*' : method.toUpperCase());
      }
    } else if (layer.handle && Array.isArray(layer.handle.stack)) {
      // A mounted router sees the path without the prefix its layer matched, as Express routes it.
      const rest = path.slice(match.path.length);
      if (rest !== '' && !rest.startsWith('/')) continue;
      collect(layer.handle, rest || '/', methods, depth + 1);
    }
  }
}

/**
 * The methods the routes of `router` (an app's router, or any Router) take at `path`, sorted, with
 * HEAD wherever GET is (Express answers HEAD with the GET route), as Express's own answer to
 * OPTIONS lists them; `['*']` when a route takes every method; empty for a path no route has.
 *
 * @example
 * allowedMethods(app.router, '/v1/products/42') // ['DELETE', 'GET', 'HEAD', 'PUT']
 */
export function allowedMethods(router: StackHolder, path: string): string[] {
  const methods = new Set<string>();
  collect(router, path, methods);
  if (methods.has('*')) return ['*'];
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/**
 * Middleware answering 405 problem+json (`http.method_not_allowed`, with `Allow`) to a request
 * whose path some route of the app has under other methods; any other request goes on, to the
 * app's 404. Mount it after every route, just before the 404 handler.
 *
 * @example
 * app.use(methodNotAllowed());
 * app.use(notFound);
 */
export function methodNotAllowed(): RequestHandler {
  return function answerMethodNotAllowed(req: Request, res, next) {
    const app = req.app as unknown as { router?: StackHolder };
    // The path from the app's root, wherever this middleware is mounted.
    const path = req.baseUrl + req.path;
    const allowed = allowedMethods(app.router ?? {}, path);
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    // OPTIONS is Express's own to answer (200 with Allow) when a route has the path.
    if (allowed.length === 0 || allowed.includes('*') || allowed.includes(method)) {
      next();
      return;
    }
    res.setHeader('Allow', allowed.join(', '));
    sendProblem(
      res,
      problemDetails('http.method_not_allowed', {
        detail: `${path} does not take ${req.method}; it takes ${allowed.join(', ')}`,
        instance: req.originalUrl,
        allowed,
      }),
    );
  };
}
