// The authenticated principal on `req.user`, shared by auth, audit, ownership and idempotency.
import type { Request } from 'express';
import type { JWTPayload } from 'jose';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    /**
     * The caller, set by `authenticate()` (or by any other middleware the app plugs in). The
     * declaration matches @types/passport's, so both can be installed side by side.
     */
    interface User {
      /** Stable id of the caller: audit fields, ownership and the idempotency scope use it. */
      id: string;
      /** Every claim of the verified token, when the caller came with a JWT. */
      claims?: JWTPayload;
    }
    interface Request {
      user?: User | undefined;
    }
  }
}

export type AuthUser = Express.User;

/** The caller's id, or undefined for an anonymous request. */
export function principalId(req: Request): string | undefined {
  const id = req.user?.id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}
