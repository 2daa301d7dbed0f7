// The caller's roles, read from one claim of the verified token (`AUTH_ROLES_CLAIM`).
import type { JWTPayload } from 'jose';

/**
 * The roles `claims` grant under `claim`. The claim is found by its whole name first, so a
 * URL-named claim (`https://example.com/roles`) or `cognito:groups` is one key even though it
 * holds dots or colons; only when no claim has that exact name is the name followed as a dotted
 * path (`realm_access.roles` is `claims.realm_access.roles`). A list keeps its text entries; a
 * text claim is split on white space, so an OAuth `scope` (`"read write"`) gives two roles.
 * Anything else grants none.
 *
 * @example
 * rolesFromClaims({ realm_access: { roles: ['librarian'] } }, 'realm_access.roles') // ['librarian']
 * rolesFromClaims({ scope: 'books:read books:write' }, 'scope') // ['books:read', 'books:write']
 */
export function rolesFromClaims(claims: JWTPayload | undefined, claim: string): string[] {
  if (!claims) return [];
  let value: unknown;
  if (Object.hasOwn(claims, claim)) {
    value = claims[claim];
  } else {
    value = claims;
    for (const step of claim.split('.')) {
      value =
        typeof value === 'object' && value !== null && Object.hasOwn(value, step)
          ? (value as Record<string, unknown>)[step]
          : undefined;
    }
  }
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value)) {
    return value.filter((role): role is string => typeof role === 'string' && role !== '');
  }
  return [];
}

/** Why `claim` cannot name a roles claim, or undefined when it can. */
export function rolesClaimProblem(claim: string): string | undefined {
  if (claim.trim() === '') return 'rolesClaim must not be empty';
  if (claim !== claim.trim() || /\s/.test(claim)) {
    return `rolesClaim "${claim}" must not contain white space`;
  }
  // A URL-named claim is one key, whatever dots it holds; a path has no empty step.
  if (!claim.includes('://') && claim.split('.').some((step) => step === '')) {
    return `rolesClaim "${claim}" has an empty step; write a dotted path such as realm_access.roles`;
  }
  return undefined;
}
