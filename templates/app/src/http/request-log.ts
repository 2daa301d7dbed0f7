// One log line per request, written when the response has been sent.
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/** Logs method, URL, status and duration of every request at `info`. */
export function requestLog(logger: Logger): RequestHandler {
  return function requestLog(req, res, next) {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        { method: req.method, url: req.originalUrl, status: res.statusCode, ms: Math.round(ms) },
        'request',
      );
    });
    next();
  };
}
