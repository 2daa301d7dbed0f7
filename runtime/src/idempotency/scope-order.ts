// The caller scope is never kept for another caller: an authentication that runs after the guard
// (and so after the scope was resolved) fails the request at request time (see docs/idempotency.md).
import type { NextFunction, Request, Response } from 'express';
import { lateAuthenticationRefusal, onLateAuthentication, principalId } from '../auth/user.js';
import { IdempotencyConfigError, IdempotencyErrorCode } from './errors.js';
import { recorderOf } from './recorder.js';

/** The advice every refusal ends with. */
export const SCOPE_ORDER_FIX =
  'authenticate before the guard: app.post(path, authenticate(), requiredIdempotentKey(), handler), or router.use(authenticate()) before requiredIdempotentKey(router)';

/**
 * Makes an authentication that runs after the guard of `req` refuse it when the caller it sets
 * differs from the one the scope was resolved for: the reservation is released and the request
 * fails (500) before its handler runs. `authenticate()` and `markAuthentication()` ask for it.
 */
export function refuseLaterCaller(req: Request, principal: string | undefined): void {
  onLateAuthentication(req, () => {
    if (principalId(req) === principal) return undefined;
    void recorderOf(req)?.release();
    return new IdempotencyConfigError(
      IdempotencyErrorCode.scopeBeforeAuthentication,
      `${req.method} ${req.originalUrl}: the caller was authenticated after the idempotency guard resolved its scope; ${SCOPE_ORDER_FIX}`,
    );
  });
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
  const marked = function authenticationChecked(req: Request, res: Response, next: NextFunction) {
    return middleware(req, res, (error?: unknown) =>
      error === undefined ? afterAuthentication(req, next) : next(error),
    );
  };
  return marked as unknown as T;
}

/** Goes on to `next`, or fails the request when its caller changed after the guard. */
function afterAuthentication(req: Request, next: NextFunction): void {
  const refusal = lateAuthenticationRefusal(req);
  return refusal ? next(refusal) : next();
}
