// The middleware that times every request and reports it by method, route template and status,
// for the request-duration histogram. Costs one check per request while metrics are off.
import { channel } from 'node:diagnostics_channel';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HTTP_REQUEST_CHANNEL, type HttpRequestMessage } from './channels.js';

/** The `http_route` of a request no route answered (404, 405): one label, whatever the path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The `http_request_method` of a method outside the known set, as OpenTelemetry names it. */
export const OTHER_METHOD = '_OTHER';

const requests = channel(HTTP_REQUEST_CHANNEL);

// The methods of RFC 9110 and PATCH (RFC 5789); any other counts as `_OTHER`, so a client
// inventing methods cannot add series.
const knownMethods = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
]);

const segmentsOf = (path: string): string[] => path.split('/').filter((part) => part !== '');

/**
 * The matched route's template: the mount path (`req.baseUrl`) and the route's path, e.g.
 * `/v1/products/:id`; `unmatched` when no route matched. An error a route throws leaves its router
 * before the response is sent, and Express then gives `req.baseUrl` back its outer value: the
 * mount path is then taken from the front of the request's path, as many segments as are missing.
 * The mount path is lower-cased, as Express matches it (`/V1/...` and `/v1/...` are one route).
 */
export function routeTemplateOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (!route || typeof route.path !== 'string') return UNMATCHED_ROUTE;
  const base = req.baseUrl.toLowerCase();
  const template = base + route.path;
  // Wildcards and optional parts match a varying number of segments: no counting then.
  if (/[*{(]/.test(route.path)) return template;
  const path = segmentsOf((req.originalUrl ?? req.url).split('?', 1)[0]!);
  const missing = path.length - segmentsOf(template).length;
  if (missing <= 0) return template;
  return `/${path.slice(0, missing).join('/').toLowerCase()}${template}`;
}

/**
 * Times each request from here to its response's end, and publishes its method, route template
 * and status on the `slicekit:http:request` channel, which `startMetrics()` listens to. Mount it
 * first, so the time covers every later middleware.
 *
 * @example
 * app.use(httpMetrics());
 */
export function httpMetrics(): RequestHandler {
  return function httpMetricsMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (!requests.hasSubscribers) return next();
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const message: HttpRequestMessage = {
        method: knownMethods.has(req.method) ? req.method : OTHER_METHOD,
        route: routeTemplateOf(req),
        statusCode: res.statusCode,
        durationSeconds: Number(process.hrtime.bigint() - started) / 1e9,
      };
      requests.publish(message);
    });
    next();
  };
}
