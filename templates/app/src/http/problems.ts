// The last two middlewares of the app: unknown routes are 404, and every error becomes an
// RFC 9457 problem+json response that never leaks internals.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ProblemError, sendProblem, statusTitle } from '@slicekit/runtime/http';
import type { Logger } from '../logger.js';

/** Answers 404 for a request no route took. */
export const notFound: RequestHandler = function notFound(req, res) {
  sendProblem(res, {
    title: statusTitle(404),
    status: 404,
    detail: `no route for ${req.method} ${req.path}`,
    instance: req.originalUrl,
  });
};

// Errors raised by Express's body parser (http-errors): a status and whether the message is safe.
interface HttpError {
  status?: number;
  expose?: boolean;
  type?: string;
  message?: string;
}

function clientErrorOf(error: unknown): { status: number; detail: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, expose, type, message } = error as HttpError;
  if (typeof status !== 'number' || status < 400 || status > 499 || !expose) return undefined;
  if (type === 'entity.parse.failed')
    return { status, detail: 'the request body is not valid JSON' };
  return { status, detail: message ?? statusTitle(status) };
}

/** Turns whatever reached Express's error chain into a problem response. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return function problemHandler(error, req, res, next) {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof ProblemError) {
      sendProblem(res, error.toProblem(req.originalUrl));
      return;
    }
    const clientError = clientErrorOf(error);
    if (clientError) {
      sendProblem(res, {
        title: statusTitle(clientError.status),
        status: clientError.status,
        detail: clientError.detail,
        instance: req.originalUrl,
      });
      return;
    }
    logger.error({ err: error, method: req.method, url: req.originalUrl }, 'request failed');
    sendProblem(res, {
      title: statusTitle(500),
      status: 500,
      detail: 'an unexpected error occurred; the server log has the details',
      instance: req.originalUrl,
    });
  };
}
