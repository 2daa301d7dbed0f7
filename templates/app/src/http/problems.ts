// The last middlewares of the app: a known path asked with another method is 405, unknown routes
// are 404, and every error becomes an RFC 9457 problem+json response that never leaks internals.
// Every problem has the members and codes listed in node_modules/slicekit/docs/problems.md.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ruleViolated } from '@slicekit/runtime/crud';
import { answerDatabaseUnavailable } from '@slicekit/runtime/database';
import { isRuleViolation } from '@slicekit/runtime/domain';
import {
  clientProblemOf,
  methodNotAllowed,
  ProblemError,
  problemDetails,
  sendProblem,
} from '@slicekit/runtime/http';
import { redactUrl } from '@slicekit/runtime/logging';
import type { Logger } from '../logger.js';

/** Answers 405 with `Allow` for a path some route takes with other methods. */
export const wrongMethod: RequestHandler = methodNotAllowed();

/** Answers 404 for a request no route took. */
export const notFound: RequestHandler = function notFound(req, res) {
  sendProblem(
    res,
    problemDetails('http.not_found', {
      detail: `no route for ${req.method} ${req.path}`,
      instance: req.originalUrl,
    }),
  );
};

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
    // A business rule an entity refused in a route of your own: 409 (or 422) crud.rule_violation,
    // as the generated routes answer it.
    if (isRuleViolation(error)) {
      sendProblem(res, ruleViolated(error).toProblem(req.originalUrl));
      return;
    }
    // Any 4xx error of Express, its router or body parser (a malformed path, a body too large...)
    // is the client's: answered with its status and a stable `code`, never as a 500.
    const clientProblem = clientProblemOf(error, req.originalUrl);
    if (clientProblem) {
      sendProblem(res, clientProblem);
      return;
    }
    // A database that did not answer in time (or refused, or lost the connection) is 503 with
    // Retry-After: it passes on its own, and the client should try again later.
    if (answerDatabaseUnavailable(error, req, res)) {
      logger.warn(
        { err: error, method: req.method, url: redactUrl(req.originalUrl) },
        'request failed: the database is unavailable',
      );
      return;
    }
    // The logger's error serializer keeps row values out; redactUrl hides secret query parameters.
    logger.error(
      { err: error, method: req.method, url: redactUrl(req.originalUrl) },
      'request failed',
    );
    sendProblem(
      res,
      problemDetails('http.internal_error', {
        detail: 'an unexpected error occurred; the server log has the details',
        instance: req.originalUrl,
      }),
    );
  };
}
