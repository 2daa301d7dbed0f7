// A guarded app that was never prepared prepares itself on its first request: requests wait for
// that one preparation before they are routed, so no route ever runs unguarded and no route
// stack changes while a request walks it. `prepareApp`/`startApp` remain the way to start:
// they surface a misconfiguration before the app serves rather than on a request.
import type { Application, NextFunction, Request, Response } from 'express';
import { PROBLEM_CONTENT_TYPE, statusTitle } from '../http/problem.js';
import { safeError } from '../logging/safe-error.js';
import { IdempotencyConfigError, OptionsValidationError } from './errors.js';
import { IdempotencyProblemType } from './problems.js';
import { afterRegistration } from './registration.js';
import { isPrepared } from './runtime.js';
import { configuredLogger, prepareApp } from './startup.js';

type Handle = (req: Request, res: Response, callback?: NextFunction) => void;
type HandlingApp = Application & { handle: Handle };

// Registered symbol: an app wrapped by another copy of the runtime is not wrapped twice.
const UNWRAPPED = Symbol.for('@slicekit/runtime:idempotency.unwrappedHandle');

/**
 * Answers a request the app could not be prepared for, without routing it (a group-covered
 * route would otherwise run without its guard). A mounted sub-app passes the error to its parent;
 * a top-level app answers 503 with Retry-After when the store failed to start (it may come up),
 * 500 for a misconfiguration.
 */
function refuse(
  app: Application,
  req: Request,
  res: Response,
  error: unknown,
  next?: NextFunction,
) {
  configuredLogger(app).error(
    { err: safeError(error), method: req.method, path: req.originalUrl },
    'idempotency: the app could not be prepared on its first request; the request was not served',
  );
  if (next) return next(error);
  const misconfigured =
    error instanceof OptionsValidationError || error instanceof IdempotencyConfigError;
  const status = misconfigured ? 500 : 503;
  // Plain Node calls: Express has not yet given `res` its methods (app.handle does that).
  res.statusCode = status;
  if (!misconfigured) res.setHeader('Retry-After', '1');
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.end(
    JSON.stringify({
      type: IdempotencyProblemType.notPrepared,
      title: statusTitle(status),
      status,
      detail: 'the idempotency guard could not be prepared; see the server log',
      // Before routing, `originalUrl` may not be set yet: the URL as received is the same.
      instance: req.originalUrl || req.url,
      code: 'idempotency.not_prepared',
    }),
  );
}

/**
 * Wraps `app.handle` (what Express calls for each request of the app) once: while the app is not
 * prepared, each request waits for `prepareApp(app)` (one preparation shared by all) before it is
 * routed; once prepared, requests go straight through.
 */
export function prepareOnFirstRequest(app: Application): void {
  const target = app as HandlingApp & { [UNWRAPPED]?: Handle };
  if (target[UNWRAPPED]) return;
  const original = target.handle;
  target[UNWRAPPED] = original;
  target.handle = function handle(this: Application, req, res, callback) {
    if (isPrepared(app)) return original.call(this, req, res, callback);
    prepareApp(app).then(
      () => original.call(this, req, res, callback),
      (error: unknown) => refuse(app, req, res, error, callback),
    );
  };
}

afterRegistration(prepareOnFirstRequest);
