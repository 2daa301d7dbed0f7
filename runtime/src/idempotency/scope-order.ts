// The caller scope is never resolved before authentication: start-up refuses a guarded route
// whose own handler list authenticates after the guard, and a check before the route's final
// handler catches authentication start-up could not recognise (see docs/idempotency.md).
import type { NextFunction, Request, Response } from 'express';
import { principalId } from '../auth/user.js';
import { failCapture, NOT_GUARDED, principalAtGuard } from './capture.js';
import { IdempotencyConfigError, IdempotencyErrorCode } from './errors.js';

// A registered symbol, so middleware marked by another copy of the runtime is recognised too.
const AUTHENTICATES = Symbol.for('@slicekit/runtime:idempotency.authenticates');

/**
 * Function names recognised as authentication without a mark: `authenticate()` from
 * `@slicekit/runtime/auth` returns `authenticateRequest`, Passport's `passport.authenticate()`
 * returns `authenticate`.
 */
const AUTHENTICATION_NAMES = new Set(['authenticateRequest', 'authenticate']);

/**
 * Marks a middleware as one that authenticates (sets `req.user`), so start-up refuses a route that
 * runs it after the guard. `authenticate()` from `@slicekit/runtime/auth` and Passport's
 * `passport.authenticate()` are recognised without it.
 *
 * @example
 * app.post('/orders', markAuthentication(apiKeyAuth), requiredIdempotentKey(), createOrder);
 */
export function markAuthentication<T extends (...args: never[]) => unknown>(middleware: T): T {
  (middleware as unknown as Record<symbol, boolean>)[AUTHENTICATES] = true;
  return middleware;
}

/** True for a middleware marked as authenticating, or recognised by its name. */
export function isAuthentication(handle: unknown): boolean {
  if (typeof handle !== 'function') return false;
  return (
    (handle as unknown as Record<symbol, unknown>)[AUTHENTICATES] === true ||
    AUTHENTICATION_NAMES.has(handle.name)
  );
}

/** The advice every refusal ends with. */
export const SCOPE_ORDER_FIX =
  'authenticate before the guard: app.post(path, authenticate(), requiredIdempotentKey(), handler), or router.use(authenticate()) for a group';

/** The start-up refusal: `route` runs `middleware` after the guard resolved the caller scope. */
export function scopeBeforeAuthentication(
  verb: string,
  route: string,
  middleware: string,
  grouped: boolean,
): IdempotencyConfigError {
  const guard = grouped
    ? 'the guard its group puts first among its handlers'
    : 'requiredIdempotentKey()';
  return new IdempotencyConfigError(
    IdempotencyErrorCode.scopeBeforeAuthentication,
    `${verb.toUpperCase()} ${route} authenticates (${middleware || 'an authentication middleware'}) after ${guard}, which would key the request by an anonymous caller scope and could replay one caller's response to another; ${SCOPE_ORDER_FIX}`,
  );
}

/**
 * Placed before the final handler of a guarded route that has middleware between the guard and
 * that handler: if the caller changed since the guard resolved the scope (an authentication
 * start-up did not recognise), the key was reserved for the wrong caller. The reservation is
 * released and the request fails (500) instead of running the handler under that scope.
 */
export function checkScopeStillCurrent(req: Request, _res: Response, next: NextFunction): void {
  const principal = principalAtGuard(req);
  if (principal === NOT_GUARDED || principal === principalId(req)) return next();
  failCapture(req);
  next(
    new IdempotencyConfigError(
      IdempotencyErrorCode.scopeBeforeAuthentication,
      `${req.method} ${req.baseUrl}${req.path}: the caller was authenticated after the idempotency guard resolved its scope; ${SCOPE_ORDER_FIX}, or mark the middleware with markAuthentication()`,
    ),
  );
}
