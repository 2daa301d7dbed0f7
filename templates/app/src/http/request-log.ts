// One log line per request, written when the response has been sent.
import type { RequestHandler } from 'express';
import { redactUrl } from '@slicekit/runtime/logging';
import type { Logger } from '../logger.js';

// Probes arrive every few seconds from an orchestrator or a load balancer: at `info` they would
// drown the requests worth reading.
const quiet = (url: string) => url.startsWith('/health/');

/**
 * Logs method, URL, status and duration of every request at `info`, the /health probes at
 * `debug`. Secret query parameters (`access_token`, `api_key`, `signature`...:
 * SECRET_QUERY_PARAMETERS) are logged as `[REDACTED]`.
 */
export function requestLog(logger: Logger): RequestHandler {
  return function requestLog(req, res, next) {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const level = quiet(req.originalUrl) ? 'debug' : 'info';
      logger[level](
        {
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          ms: Math.round(ms),
        },
        'request',
      );
    });
    next();
  };
}
