// One log line per request, written when the response has been sent.
import type { RequestHandler, Response } from 'express';
import { redactUrl } from '@slicekit/runtime/logging';
import type { Logger } from '../logger.js';

// Probes arrive every few seconds from an orchestrator or a load balancer: at `info` they would
// drown the requests worth reading.
const quiet = (url: string) => url.startsWith('/health/');

/** When the request came in (performance.now()), kept on the response for its line. */
const STARTED = Symbol('requestStarted');
type Timed = Response & { [STARTED]?: number };

/**
 * Logs method, URL, status and duration of every request at `info`, the /health probes at
 * `debug`. Secret query parameters (`access_token`, `api_key`, `signature`...:
 * SECRET_QUERY_PARAMETERS) are logged as `[REDACTED]`. Costs nothing when `info` is off, and
 * otherwise one small object per line: the listener is shared by every response.
 */
export function requestLog(logger: Logger): RequestHandler {
  function logRequest(this: Timed): void {
    const url = this.req.originalUrl;
    const level = quiet(url) ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      method: this.req.method,
      // Only a query string can carry a secret.
      url: url.includes('?') ? redactUrl(url) : url,
      status: this.statusCode,
      ms: Math.round(performance.now() - (this[STARTED] ?? 0)),
    };
    logger[level](line, 'request');
  }
  return function requestLog(_req, res: Timed, next) {
    if (!logger.isLevelEnabled('debug') && !logger.isLevelEnabled('info')) {
      next();
      return;
    }
    res[STARTED] = performance.now();
    // `on`, not `once`: a response finishes once, and `once` would wrap the listener anew each time.
    res.on('finish', logRequest);
    next();
  };
}
