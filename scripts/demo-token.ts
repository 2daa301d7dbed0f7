// Bearer tokens for the secure shop demo (DEMO=shop-secure): HS256 JWTs signed with
// AUTH_JWT_SECRET, naming the caller, its roles and its tenant in the claims the app reads
// (AUTH_USER_CLAIM, AUTH_ROLES_CLAIM, AUTH_TENANT_CLAIM, by their exact names). Run alone it mints
// one: AUTH_JWT_SECRET=... npm run -s demo:token -- <user> <role,role> <tenant>
import { createHmac } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** Who a token names. */
export interface DemoCaller {
  user: string;
  roles: readonly string[];
  tenant: string;
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** Why `secret` cannot sign the app's tokens, or undefined when it can (HS256 wants 32 bytes). */
export function secretProblem(secret: string | undefined): string | undefined {
  if (secret === undefined || secret === '') return 'AUTH_JWT_SECRET is not set';
  const bytes = Buffer.byteLength(secret);
  return bytes < 32 ? `AUTH_JWT_SECRET has ${bytes} bytes; HS256 needs at least 32` : undefined;
}

/** The first of a comma-separated setting, or undefined when it is unset. */
function first(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim() || undefined;
}

/**
 * An HS256 token for `caller`, in the claims `env` names, valid for `lifetimeSeconds` (12 hours;
 * a negative lifetime makes a token that has already expired).
 */
export function mintToken(
  secret: string,
  caller: DemoCaller,
  env: NodeJS.ProcessEnv = process.env,
  lifetimeSeconds = 12 * 3600,
): string {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    [env.AUTH_USER_CLAIM?.trim() || 'sub']: caller.user,
    [env.AUTH_ROLES_CLAIM?.trim() || 'roles']: [...caller.roles],
    [env.AUTH_TENANT_CLAIM?.trim() || 'tenant']: caller.tenant,
    iat: now,
    exp: now + lifetimeSeconds,
  };
  const issuer = first(env.AUTH_ISSUER);
  const audience = first(env.AUTH_AUDIENCE);
  if (issuer) claims.iss = issuer;
  if (audience) claims.aud = audience;
  const signed = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [user, roles, tenant] = process.argv.slice(2);
  const problem = secretProblem(process.env.AUTH_JWT_SECRET);
  if (problem || !user || roles === undefined || !tenant) {
    console.error(
      problem
        ? `demo:token: ${problem}; give the secret the demo printed (or the one it was started with)`
        : 'usage: AUTH_JWT_SECRET=... npm run -s demo:token -- <user> <role,role> <tenant>',
    );
    process.exit(1);
  }
  const list = roles
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  console.log(mintToken(process.env.AUTH_JWT_SECRET!, { user, roles: list, tenant }));
}
