// The caller scope is never kept for another caller: an authentication that runs after the guard
// (and so after the scope was resolved) fails the request at request time (see docs/idempotency.md).
import type { NextFunction, Request, Response } from 'express';
import { lateAuthenticationRefusal, onLateAuthentication, principalId } from '../auth/index.js';
import { PROBLEM_CONTENT_TYPE, shapeProblem } from '../http/index.js';
import { IdempotencyConfigError, IdempotencyErrorCode } from './errors.js';
import type { IdempotencyLogger } from './logger.js';

/**
 * Makes an authentication that runs after the guard of `req` refuse it when the caller it sets
 * differs from the one the scope was resolved for: the reservation is released and the request
 * fails (500) before its handler runs. `authenticate()` and `markAuthentication()` ask for it.
 */
export function refuseLaterCaller(
  req: Request,
  principal: string | undefined,
  release: () => void,
): void {
  onLateAuthentication(req, () => {
    if (principalId(req) === principal) return undefined;
    release();
    return new IdempotencyConfigError(IdempotencyErrorCode.scopeBeforeAuthentication, late(req));
  });
}

/** The detail of every refusal: what happened, and the fix. */
const late = (req: Request) =>
  `${req.method} ${req.originalUrl}: the caller was authenticated after the idempotency guard resolved its scope; authenticate before the guard: app.post(path, authenticate(), requiredIdempotentKey(), handler), or router.use(authenticate()) before requiredIdempotentKey(router)`;

/**
 * The body replacing a response whose caller was authenticated after the guard by a middleware
 * that did not say so: a 500 naming the misconfiguration, when the headers are not out yet.
 */
export function lateCallerProblem(res: Response, logger: IdempotencyLogger): string | undefined {
  const req = res.req as Request;
  const detail = late(req);
  logger.error({ method: req.method, path: req.originalUrl }, `idempotency: ${detail}`);
  if (res.headersSent) return undefined;
  const body = JSON.stringify(shapeProblem({ title: '', status: 500, detail }, req.originalUrl));
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusCode = 500;
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  return body;
}

/**
 * Wraps an authentication middleware (one that sets `req.user`) so that, run after the guard, it
 * fails the request instead of letting the handler run under a scope resolved for no caller.
 * `authenticate()` from `@slicekit/runtime/auth` does this without it.
 *
 * @example
 * app.post('/orders', markAuthentication(apiKeyAuth), requiredIdempotentKey(), createOrder);
 */
export function markAuthentication<
  T extends (req: Request, res: Response, next: NextFunction) => unknown,
>(middleware: T): T {
  // Goes on to `next`, or fails the request when its caller changed after the guard.
  const marked = (req: Request, res: Response, next: NextFunction) =>
    middleware(req, res, (error?: unknown) => next(error ?? lateAuthenticationRefusal(req)));
  return marked as unknown as T;
}
