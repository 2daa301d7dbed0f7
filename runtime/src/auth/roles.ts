// The caller's roles and tenant, each read from one claim of the verified token (`AUTH_ROLES_CLAIM`,
// `AUTH_TENANT_CLAIM`).
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
  const value = claimAt(claims, claim);
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value)) {
    return value.filter((role): role is string => typeof role === 'string' && role !== '');
  }
  return [];
}

/**
 * The value of `claim` in `claims`: a claim of exactly that name first, else the name followed as
 * a dotted path (`realm_access.roles`); undefined when there is none.
 */
function claimAt(claims: JWTPayload | undefined, claim: string): unknown {
  if (!claims) return undefined;
  if (Object.hasOwn(claims, claim)) return claims[claim];
  let value: unknown = claims;
  for (const step of claim.split('.')) {
    value =
      typeof value === 'object' && value !== null && Object.hasOwn(value, step)
        ? (value as Record<string, unknown>)[step]
        : undefined;
  }
  return value;
}

/**
 * The tenant `claims` name under `claim`, found as the roles claim is (whole name, then dotted
 * path): a text value exactly as given (never trimmed or case-folded: `ACME` and `acme ` are two
 * tenants), or a whole number as its decimal text. Blank text, lists and anything else name no
 * tenant, so the caller reaches no tenant's rows (403 `auth.tenant_required`).
 *
 * @example
 * tenantFromClaims({ tenant: 'acme' }, 'tenant') // 'acme'
 * tenantFromClaims({ app_metadata: { org: 7 } }, 'app_metadata.org') // '7'
 */
export function tenantFromClaims(
  claims: JWTPayload | undefined,
  claim: string,
): string | undefined {
  const value = claimAt(claims, claim);
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** Why `claim` cannot name a claim (of roles, of the tenant), or undefined when it can. */
export function claimPathProblem(claim: string, option = 'rolesClaim'): string | undefined {
  if (claim.trim() === '') return `${option} must not be empty`;
  if (claim !== claim.trim() || /\s/.test(claim)) {
    return `${option} "${claim}" must not contain white space`;
  }
  // A URL-named claim is one key, whatever dots it holds; a path has no empty step.
  if (!claim.includes('://') && claim.split('.').some((step) => step === '')) {
    return `${option} "${claim}" has an empty step; write a dotted path such as realm_access.roles`;
  }
  return undefined;
}
