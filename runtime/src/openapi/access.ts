// What an operation's `access` adds to its OpenAPI operation: the bearer requirement, 401 and 403.
import { BEARER_SCHEME, problemResponse } from './components.js';
import type { OperationAccess, OperationDescription } from './types.js';

/** True when `access` needs a verified caller (so the document needs the bearer scheme). */
export function needsBearer(access: OperationAccess | undefined): boolean {
  return access !== undefined && access !== 'anyone';
}

/**
 * Adds to `operation` (and its `responses`) what `access` requires: `security` naming the bearer
 * scheme, 401 for an anonymous caller, and for a role list 403 `auth.forbidden` and the roles in
 * the description. `anyone` and no access change nothing.
 */
export function describeAccess(
  operation: Record<string, unknown>,
  responses: Record<string, unknown>,
  access: OperationAccess | undefined,
): void {
  if (!needsBearer(access)) return;
  operation.security = [{ [BEARER_SCHEME]: [] }];
  responses['401'] ??= problemResponse(
    'The bearer token is missing, malformed, expired or not trusted.',
  );
  if (Array.isArray(access)) {
    const roles = access.join(', ');
    operation.description = `Requires a caller holding one of the roles: ${roles}.`;
    responses['403'] = problemResponse(
      `The caller holds none of the roles allowed here (${roles}): auth.forbidden, whatever the row.`,
    );
  } else {
    operation.description = 'Requires an authenticated caller.';
  }
}

/**
 * Adds to a list operation what its `deleted` parameter requires of the caller (the restore
 * operation's rule): 401 and 403 for asking with it, when the list itself did not say so already.
 */
export function describeDeletedAccess(
  operation: Record<string, unknown>,
  responses: Record<string, unknown>,
  list: OperationDescription,
): void {
  const access = list.list?.deletedAccess;
  if (!needsBearer(access)) return;
  responses['401'] ??= problemResponse(
    'The bearer token is missing, malformed, expired or not trusted (or absent with `deleted`).',
  );
  const who = Array.isArray(access)
    ? `one of the roles: ${access.join(', ')}`
    : 'an authenticated caller';
  const text = `Listing deleted rows (\`deleted\`) requires ${who}.`;
  operation.description = operation.description ? `${String(operation.description)} ${text}` : text;
  if (Array.isArray(access)) {
    responses['403'] ??= problemResponse(
      `The caller may not list deleted rows (\`deleted\` needs ${who}): auth.forbidden.`,
    );
  }
}
