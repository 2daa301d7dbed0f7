// Who the caller is. Yours to change: the principal's id (`req.user.id`) stamps the audit fields,
// owns rows of owned entities, and scopes idempotency keys (`user:<id>`).
//
// By default every caller is anonymous. Set AUTH_JWT_SECRET (HS256) or AUTH_JWKS_URL (RS256/ES256
// keys of your identity provider) and bearer JWTs are verified: a bad token is 401 problem+json,
// and the `sub` claim becomes `req.user.id`. AUTH_REQUIRED=true also turns away anonymous calls.
// For sessions or API keys, replace `authentication` with a middleware that sets `req.user = { id }`.
import type { RequestHandler } from 'express';
import { authenticate, type AuthOptions } from '@slicekit/runtime/auth';
import { authSettings } from './config.js';

/** The app's authentication middleware; tests pass their own options. */
export function authentication(options: AuthOptions = authSettings): RequestHandler {
  return authenticate(options);
}
