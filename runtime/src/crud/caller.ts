// Who is asking, and on what condition: the principal every repository step confines rows to, and
// the `If-Match` precondition a change or delete must meet (RFC 9110 section 13.1.1).
import type { Request } from 'express';
import { principalId } from '../auth/index.js';

/** The caller of a repository step. */
export interface Caller {
  /** `req.user.id`, exactly as given; `''` when anonymous. */
  readonly principal: string;
  /**
   * The request's `If-Match` header: a change or delete goes ahead only when the row's current
   * entity tag matches it (412 otherwise). @default undefined (unconditional)
   */
  readonly ifMatch?: string | undefined;
}

/** The caller behind `req`: its principal and its `If-Match` precondition, if any. */
export function callerOf(req: Request): Caller {
  const ifMatch = req.headers['if-match'];
  return ifMatch === undefined
    ? { principal: principalId(req) ?? '' }
    : { principal: principalId(req) ?? '', ifMatch };
}

/** A caller given as a bare principal (what handlers passed before callers had preconditions). */
export function asCaller(caller: Caller | string | undefined): Caller {
  return typeof caller === 'object' ? caller : { principal: caller ?? '' };
}
