// `authenticate()`: Express middleware verifying bearer JWTs with jose and setting `req.user`.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { problemDetails, sendProblem } from '../http/index.js';
import { safeError } from '../logging/index.js';
import { unauthorized } from './challenge.js';
import {
  authDefaults,
  validateAuthOptions,
  verificationConfigured,
  type AuthOptions,
} from './options.js';
import { rolesFromClaims } from './roles.js';
import { lateAuthenticationRefusal } from './user.js';

type KeySource = Uint8Array | JWTVerifyGetKey;

/** Errors that say the token is bad, as opposed to the key source being unreachable. */
const tokenFaults = new Set<string>([
  errors.JWTExpired.code,
  errors.JWTClaimValidationFailed.code,
  errors.JWTInvalid.code,
  errors.JWSInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
]);

function describeTokenFault(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the bearer token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `the bearer token's "${error.claim}" claim is not accepted`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return 'the bearer token signature does not verify';
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'the bearer token is signed by an unknown key';
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'the bearer token uses an algorithm not accepted here';
  return 'the bearer token is malformed';
}

function keySource(options: AuthOptions): KeySource | undefined {
  if (options.jwtSecret) {
    return typeof options.jwtSecret === 'string'
      ? new TextEncoder().encode(options.jwtSecret)
      : options.jwtSecret;
  }
  if (options.jwksUrl) {
    return createRemoteJWKSet(new URL(String(options.jwksUrl)), {
      timeoutDuration: options.jwksTimeoutMs ?? authDefaults.jwksTimeoutMs,
    });
  }
  return undefined;
}

/** The bearer token of the request, `null` when no Authorization header, `''` when not Bearer. */
function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(header);
  return match?.[1] ?? '';
}

/**
 * Express middleware: verifies `Authorization: Bearer <jwt>` and sets `req.user = { id, claims,
 * roles }` (the roles from `rolesClaim`).
 * Without `jwtSecret` or `jwksUrl` every caller is anonymous (tokens are not looked at). With one
 * of them, a token that is sent must verify (401 problem+json otherwise), and `required: true`
 * also turns away requests without a token.
 *
 * @example
 * app.use(authenticate({ jwtSecret: process.env.AUTH_JWT_SECRET, required: true }));
 * app.get('/me', (req, res) => res.json({ id: req.user?.id }));
 */
export function authenticate(options: AuthOptions = {}): RequestHandler {
  validateAuthOptions(options);
  const key = keySource(options);
  const required = options.required ?? authDefaults.required;
  const userIdClaim = options.userIdClaim ?? authDefaults.userIdClaim;
  const rolesClaim = options.rolesClaim ?? authDefaults.rolesClaim;
  const algorithms = options.algorithms ?? [
    ...(options.jwtSecret ? authDefaults.secretAlgorithms : authDefaults.jwksAlgorithms),
  ];
  const verifyOptions = {
    algorithms,
    clockTolerance: options.clockToleranceSeconds ?? authDefaults.clockToleranceSeconds,
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
  };

  return async function authenticateRequest(req: Request, res: Response, next: NextFunction) {
    if (!verificationConfigured(options) || !key) return next();
    const token = bearerToken(req);
    if (token === null) {
      if (required) return unauthorized(req, res, 'this route needs a bearer token');
      return next();
    }
    if (token === '') {
      return unauthorized(
        req,
        res,
        'the Authorization header is not a bearer token',
        'invalid_request',
      );
    }
    let payload: JWTPayload;
    try {
      // jwtVerify is overloaded on the key kind; the union needs a branch to pick one.
      const result =
        key instanceof Uint8Array
          ? await jwtVerify(token, key, verifyOptions)
          : await jwtVerify(token, key, verifyOptions);
      payload = result.payload;
    } catch (error) {
      if (error instanceof errors.JOSEError && tokenFaults.has(error.code)) {
        return unauthorized(req, res, describeTokenFault(error), 'invalid_token');
      }
      // The key set could not be fetched or read: not the caller's fault, so no 401.
      options.logger?.error({ err: safeError(error) }, 'auth: could not load the JSON Web Key Set');
      return sendProblem(
        res,
        problemDetails('auth.keys_unavailable', {
          detail: 'the keys that verify bearer tokens cannot be loaded right now',
          instance: req.originalUrl,
        }),
      );
    }
    const id = payload[userIdClaim];
    // A subject of blanks names nobody: it must not become a principal of its own.
    if ((typeof id !== 'string' || id.trim() === '') && typeof id !== 'number') {
      return unauthorized(
        req,
        res,
        `the bearer token has no "${userIdClaim}" claim naming the caller`,
        'invalid_token',
      );
    }
    req.user = { id: String(id), claims: payload, roles: rolesFromClaims(payload, rolesClaim) };
    // Run after the idempotency guard, a caller is refused rather than keyed as someone else.
    const refusal = lateAuthenticationRefusal(req);
    return refusal ? next(refusal) : next();
  };
}
