// The authenticated principal on `req.user`, shared by auth, audit, ownership, tenants and
// idempotency.
import type { Request } from 'express';
import type { JWTPayload } from 'jose';
import { ProblemError } from '../http/index.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    /**
     * The caller, set by `authenticate()` (or by any other middleware the app plugs in). The
     * declaration matches @types/passport's, so both can be installed side by side.
     */
    interface User {
      /** Stable id of the caller: audit fields, ownership and the idempotency scope use it. */
      id: string;
      /** Every claim of the verified token, when the caller came with a JWT. */
      claims?: JWTPayload;
      /** The caller's roles (`rolesClaim` of the token), checked by each operation's `access`. */
      roles?: readonly string[];
      /**
       * The caller's tenant (`tenantClaim` of the token): rows of entities with `tenant: true` are
       * confined to it, compared exactly. Absent: the caller reaches no tenant's rows.
       */
      tenant?: string;
    }
    interface Request {
      user?: User | undefined;
    }
  }
}

export type AuthUser = Express.User;

/**
 * The caller's id, or undefined for an anonymous request. A numeric id (what Passport apps often
 * put on `req.user` from an integer primary key) counts as its decimal text, so each user keeps
 * an audit name, ownership and idempotency scope of their own. An id that is blank after trimming
 * names nobody and counts as anonymous; any other id is the principal exactly as given.
 */
export function principalId(req: Request): string | undefined {
  const id: unknown = req.user?.id;
  if (typeof id === 'string') return id.trim().length > 0 ? id : undefined;
  if (typeof id === 'number') return Number.isFinite(id) ? String(id) : undefined;
  if (typeof id === 'bigint') return id.toString();
  return undefined;
}

/**
 * The caller's tenant, or undefined when it names none (anonymous, or a token without the tenant
 * claim). Blank text names no tenant; any other text is the tenant exactly as given.
 */
export function tenantId(req: Request): string | undefined {
  const tenant: unknown = req.user?.tenant;
  return typeof tenant === 'string' && tenant.trim() !== '' ? tenant : undefined;
}

/**
 * The 403 problem of a caller whose token names no tenant, on an entity whose rows belong to
 * tenants (`auth.tenant_required`).
 */
export function tenantRequired(entity: string): ProblemError {
  return ProblemError.of(
    'auth.tenant_required',
    `${entity} rows belong to tenants, and the caller's token names none`,
    { entity },
  );
}

const lateChecks = new WeakMap<object, () => Error | undefined>();

/**
 * Sets what an authentication running later for `req` asks before it goes on: the idempotency
 * guard, which resolved the caller's scope already, refuses a caller that changed since.
 */
export function onLateAuthentication(req: Request, check: () => Error | undefined): void {
  lateChecks.set(req, check);
}

/** The error an authentication that just set `req.user` must pass on instead of going on. */
export function lateAuthenticationRefusal(req: Request): Error | undefined {
  return lateChecks.get(req)?.();
}
