// The caller scope of a request: who the key belongs to, so that two callers sending the same
// key to the same route never collide.
import { createHmac } from 'node:crypto';
import type { Request } from 'express';
import { principalId, tenantId } from '../auth/index.js';
import type { ResolvedIdempotencyOptions } from './options.js';

/**
 * The default chain, first link that applies wins:
 * 1. `user:<id>` from the authenticated principal, `req.user.id` (set by `authenticate()` from
 *    `@slicekit/runtime/auth`, or any middleware that sets `req.user`), led by
 *    `tenant:<JSON text of the tenant> ` when the caller names one (`req.user.tenant`): the same
 *    user id in two tenants (two identity realms) is two callers;
 * 2. with `scopeHmacSecret`: `auth:<hex HMAC-SHA256 of the Authorization header>`; the raw header
 *    and the secret are never logged or stored, only this digest;
 * 3. with `includeClientIpInScope`: `ip:<req.ip>` (honours Express's `trust proxy` setting);
 * 4. otherwise `''` (unscoped).
 * A `keyScopeResolver` replaces the whole chain; its `null`/`undefined` means `''`.
 */
export function resolveScope(
  req: Request,
  options: ResolvedIdempotencyOptions,
  /** `principalId(req)`, when the caller has it already. */
  user: string | undefined = principalId(req),
): string {
  if (options.keyScopeResolver) return options.keyScopeResolver(req) ?? '';
  if (user !== undefined) {
    const tenant = tenantId(req);
    return tenant === undefined ? `user:${user}` : `tenant:${JSON.stringify(tenant)} user:${user}`;
  }
  if (options.scopeHmacSecret !== null) {
    const authorization = req.headers.authorization;
    if (authorization) {
      const digest = createHmac('sha256', options.scopeHmacSecret)
        .update(authorization, 'utf8')
        .digest('hex');
      return `auth:${digest}`;
    }
  }
  if (options.includeClientIpInScope && req.ip) return `ip:${req.ip}`;
  return '';
}
