// Options of the bearer-JWT middleware, their defaults, and reading them from the environment.
import { envBoolean, ConfigError } from '../config/index.js';
import { AuthConfigError } from './errors.js';
import { claimPathProblem } from './roles.js';

/** A pino-compatible logger; only `warn` and `error` are used by the auth middleware. */
export interface AuthLogger {
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface AuthOptions {
  /**
   * Shared secret for HS256/HS384/HS512 tokens. Give this or `jwksUrl` to turn verification on.
   * @default undefined (no shared secret)
   */
  jwtSecret?: string | Uint8Array;
  /**
   * URL of a JSON Web Key Set (for example `https://issuer/.well-known/jwks.json`); keys are
   * fetched on first use, cached and refreshed when a token names an unknown `kid`.
   * @default undefined (no key set)
   */
  jwksUrl?: string | URL;
  /** Expected `iss` claim; tokens from another issuer get 401. @default undefined (not checked) */
  issuer?: string | string[];
  /** Expected `aud` claim; tokens for another audience get 401. @default undefined (not checked) */
  audience?: string | string[];
  /**
   * Accepted signature algorithms.
   * @default ['HS256', 'HS384', 'HS512'] with `jwtSecret`; ['RS256', 'PS256', 'ES256', 'EdDSA'] with `jwksUrl`
   */
  algorithms?: string[];
  /** Claim holding the caller's id, copied to `req.user.id`. @default 'sub' */
  userIdClaim?: string;
  /**
   * Claim holding the caller's roles, copied to `req.user.roles`: a claim of exactly this name
   * (`https://example.com/roles`, `cognito:groups`), else a dotted path (`realm_access.roles`); a
   * text claim is split on white space (`scope`). See docs/access.md.
   * @default 'roles'
   */
  rolesClaim?: string;
  /**
   * Claim holding the caller's tenant, copied to `req.user.tenant`, found like `rolesClaim` (whole
   * name first, then a dotted path such as `app_metadata.tenant`); text or a whole number. Rows of
   * entities with `tenant: true` are confined to it. See docs/access.md.
   * @default 'tenant'
   */
  tenantClaim?: string;
  /**
   * When true, a request without a bearer token gets 401. When false, anonymous callers pass
   * through with `req.user` undefined; a token that is sent is still verified.
   * @default false
   */
  required?: boolean;
  /** Leeway for `exp`/`nbf`, in seconds. @default 5 */
  clockToleranceSeconds?: number;
  /** Time allowed for fetching the key set, in milliseconds. @default 5000 */
  jwksTimeoutMs?: number;
  /** Where key-set failures are reported. @default undefined (silent) */
  logger?: AuthLogger;
}

export const authDefaults = {
  userIdClaim: 'sub',
  rolesClaim: 'roles',
  tenantClaim: 'tenant',
  required: false,
  clockToleranceSeconds: 5,
  jwksTimeoutMs: 5000,
  secretAlgorithms: ['HS256', 'HS384', 'HS512'],
  jwksAlgorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
} as const;

/** True when the options name a way to verify tokens. */
export function verificationConfigured(options: AuthOptions): boolean {
  return Boolean(options.jwtSecret) || Boolean(options.jwksUrl);
}

/** Throws `AuthConfigError` listing every rule the options break. */
export function validateAuthOptions(options: AuthOptions): void {
  const problems: string[] = [];
  if (options.jwtSecret && options.jwksUrl) {
    problems.push('give either jwtSecret or jwksUrl, not both');
  }
  if (options.required && !verificationConfigured(options)) {
    problems.push('required is true but neither jwtSecret nor jwksUrl is set');
  }
  if (typeof options.jwtSecret === 'string' && options.jwtSecret.length > 0) {
    // RFC 7518 section 3.2: an HMAC key must be at least as long as the hash output.
    if (Buffer.byteLength(options.jwtSecret) < 32) {
      problems.push('jwtSecret must be at least 32 bytes long for HS256');
    }
  }
  if (options.jwksUrl) {
    try {
      new URL(String(options.jwksUrl));
    } catch {
      problems.push(`jwksUrl is not a URL: ${String(options.jwksUrl)}`);
    }
  }
  if (options.userIdClaim !== undefined && options.userIdClaim.trim() === '') {
    problems.push('userIdClaim must not be empty');
  }
  for (const option of ['rolesClaim', 'tenantClaim'] as const) {
    const claim = options[option];
    const problem = claim === undefined ? undefined : claimPathProblem(claim, option);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) {
    throw new AuthConfigError(`invalid auth options: ${problems.join('; ')}`);
  }
}

/**
 * Refuses to start an app whose slices keep rows of tenants (`tenant: true`) while no token is
 * verified: no caller could name a tenant, and the configuration fails closed rather than answer
 * 403 to every call. Throws `AuthConfigError` naming the slices and the settings to give.
 *
 * @example
 * requireVerifiedTenants(slices, authSettings); // at start-up, after discovering the slices
 */
export function requireVerifiedTenants(
  slices: readonly { name: string; tenant?: boolean }[],
  options: AuthOptions,
): void {
  const tenants = slices.filter((slice) => slice.tenant).map((slice) => slice.name);
  if (tenants.length === 0 || verificationConfigured(options)) return;
  throw new AuthConfigError(
    `the rows of ${tenants.join(', ')} belong to tenants, named by the verified token's ` +
      `tenant claim, but no token is verified: set AUTH_JWT_SECRET or AUTH_JWKS_URL ` +
      `(and AUTH_TENANT_CLAIM when the claim is not "tenant")`,
  );
}

/**
 * Reads auth options from environment variables, the way a generated app configures itself:
 * `AUTH_JWT_SECRET`, `AUTH_JWKS_URL`, `AUTH_ISSUER`, `AUTH_AUDIENCE` (comma-separated lists
 * allowed), `AUTH_USER_CLAIM`, `AUTH_ROLES_CLAIM`, `AUTH_TENANT_CLAIM` and `AUTH_REQUIRED` (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`,
 * any case). Any other `AUTH_REQUIRED` throws `ConfigError` rather than leaving routes open, and an
 * `AUTH_ROLES_CLAIM` with white space inside or an empty path step (`realm_access..roles`) throws
 * too, rather than quietly granting no roles; unset or blank, it is `roles` (`AUTH_TENANT_CLAIM`
 * likewise, `tenant`).
 *
 * @example
 * app.use(authenticate(authOptionsFromEnv(process.env)));
 */
export function authOptionsFromEnv(env: Record<string, string | undefined>): AuthOptions {
  const list = (value: string | undefined): string | string[] | undefined => {
    if (!value) return undefined;
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    return items.length === 1 ? items[0] : items;
  };
  const options: AuthOptions = {};
  if (env.AUTH_JWT_SECRET) options.jwtSecret = env.AUTH_JWT_SECRET;
  if (env.AUTH_JWKS_URL) options.jwksUrl = env.AUTH_JWKS_URL;
  const issuer = list(env.AUTH_ISSUER);
  if (issuer) options.issuer = issuer;
  const audience = list(env.AUTH_AUDIENCE);
  if (audience) options.audience = audience;
  if (env.AUTH_USER_CLAIM) options.userIdClaim = env.AUTH_USER_CLAIM;
  const rolesClaim = claimPath(env, 'AUTH_ROLES_CLAIM', 'realm_access.roles');
  if (rolesClaim) options.rolesClaim = rolesClaim;
  const tenantClaim = claimPath(env, 'AUTH_TENANT_CLAIM', 'app_metadata.tenant');
  if (tenantClaim) options.tenantClaim = tenantClaim;
  if (env.AUTH_REQUIRED?.trim()) options.required = envBoolean(env, 'AUTH_REQUIRED', false);
  return options;
}

/**
 * The claim `name` names (`AUTH_ROLES_CLAIM`, `AUTH_TENANT_CLAIM`), trimmed; undefined when unset
 * or blank. White space inside or an empty path step throws `ConfigError`, showing a dotted path
 * such as `example`.
 */
function claimPath(
  env: Record<string, string | undefined>,
  name: string,
  example: string,
): string | undefined {
  const claim = env[name]?.trim();
  if (!claim) return undefined;
  if (claimPathProblem(claim)) {
    const accepts = `a claim name without white space, or a dotted path such as ${example}`;
    throw new ConfigError(name, claim, accepts);
  }
  return claim;
}
