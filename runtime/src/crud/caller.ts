// Who is asking, and on what condition: the principal, roles and tenant every repository step
// confines rows by (row-scope.ts), and the `If-Match` precondition a change or delete must meet
// (RFC 9110 section 13.1.1).
import type { Request } from 'express';
import { principalId, tenantId } from '../auth/index.js';

/** The caller of a repository step. */
export interface Caller {
  /** `req.user.id`, exactly as given; `''` when anonymous. */
  readonly principal: string;
  /** The caller's roles (`req.user.roles`): an owned table's bypass roles see every row. */
  readonly roles?: readonly string[] | undefined;
  /**
   * The caller's tenant (`req.user.tenant`): rows of tenant tables are confined to it, exactly;
   * without one, a tenant table answers 403 `auth.tenant_required`.
   */
  readonly tenant?: string | undefined;
  /**
   * The request's `If-Match` header: a change or delete goes ahead only when the row's current
   * entity tag matches it (412 otherwise). @default undefined (unconditional)
   */
  readonly ifMatch?: string | undefined;
}

/** The caller behind `req`: its principal, roles, tenant and `If-Match` precondition, if any. */
export function callerOf(req: Request): Caller {
  const ifMatch = req.headers['if-match'];
  const tenant = tenantId(req);
  const roles = req.user?.roles;
  return {
    principal: principalId(req) ?? '',
    ...(roles ? { roles } : {}),
    ...(tenant === undefined ? {} : { tenant }),
    ...(ifMatch === undefined ? {} : { ifMatch }),
  };
}

/** A caller given as a bare principal (what handlers passed before callers had preconditions). */
export function asCaller(caller: Caller | string | undefined): Caller {
  return typeof caller === 'object' ? caller : { principal: caller ?? '' };
}
