// What an operation's `access` adds to its OpenAPI operation: the bearer requirement, 401 and 403.
import { BEARER_SCHEME, problemResponse } from './components.js';
import type { OperationAccess } from './types.js';

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
