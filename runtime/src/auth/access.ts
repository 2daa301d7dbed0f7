// `requireAccess`: the role check of one generated operation (the entity spec's `access` block),
// run before anything else of the route, so a caller without the role learns nothing of the row.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { problemDetails, sendProblem } from '../http/index.js';
import { unauthorized } from './challenge.js';
import { principalId } from './user.js';

/**
 * Who may call an operation: `anyone` (no check), `authenticated` (any verified caller), or a list
 * of role names (a caller holding at least one of them).
 */
export type AccessRule = 'anyone' | 'authenticated' | readonly string[];

/**
 * Express middleware allowing `operation` of `entity` to the callers `rule` names. An anonymous
 * caller where authentication is needed gets 401 `auth.unauthorized` (with `WWW-Authenticate:
 * Bearer`); an authenticated caller holding none of the roles gets 403 `auth.forbidden` naming the
 * operation, never the roles it lacks. The roles are `req.user.roles` (set by `authenticate()` from
 * its `rolesClaim`, or by any middleware of the app's own).
 *
 * @example
 * router.delete('/books/:id', requireAccess('Book', 'delete', ['librarian']), sliceRoute(...));
 */
export function requireAccess(entity: string, operation: string, rule: AccessRule): RequestHandler {
  if (rule === 'anyone') {
    return function allowAnyone(_req: Request, _res: Response, next: NextFunction) {
      next();
    };
  }
  const allowed = rule === 'authenticated' ? undefined : new Set(rule);
  return function checkAccess(req: Request, res: Response, next: NextFunction) {
    if (principalId(req) === undefined) {
      unauthorized(req, res, `${operation} on ${entity} needs an authenticated caller`);
      return;
    }
    if (allowed && !(req.user?.roles ?? []).some((role) => allowed.has(role))) {
      sendProblem(
        res,
        problemDetails('auth.forbidden', {
          detail: `the caller's roles do not allow ${operation} on ${entity}`,
          instance: req.originalUrl,
          operation,
        }),
      );
      return;
    }
    next();
  };
}
