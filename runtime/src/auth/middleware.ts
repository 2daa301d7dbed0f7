// `authenticate()`: Express middleware verifying bearer JWTs with jose and setting `req.user`.
import { webcrypto } from 'node:crypto';
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
import { rolesFromClaims, tenantFromClaims } from './roles.js';
import { lateAuthenticationRefusal } from './user.js';

/** The hash of each HMAC algorithm a shared secret verifies. */
const HMAC_HASHES: Readonly<Record<string, string>> = {
  HS256: 'SHA-256',
  HS384: 'SHA-384',
  HS512: 'SHA-512',
};

/**
 * The shared secret as jose's key resolver, imported as a WebCrypto key once per algorithm: given
 * the raw bytes, jose imports them anew on every verification (`crypto.subtle.importKey`, about
 * 4% of an authenticated GET's CPU in a profile). Only algorithms the options allow reach the
 * resolver, so the map stays small; any other is handed the bytes, for jose to refuse as it would.
 */
function secretKey(secret: Uint8Array): JWTVerifyGetKey {
  const imported = new Map<string, Promise<webcrypto.CryptoKey | Uint8Array>>();
  return ({ alg }) => {
    let key = imported.get(alg);
    if (!key) {
      const hash = HMAC_HASHES[alg];
      key = hash
        ? webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash }, false, ['verify'])
        : Promise.resolve(secret);
      imported.set(alg, key);
    }
    return key;
  };
}

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

function keySource(options: AuthOptions): JWTVerifyGetKey | undefined {
  if (options.jwtSecret) {
    return secretKey(
      typeof options.jwtSecret === 'string'
        ? new TextEncoder().encode(options.jwtSecret)
        : options.jwtSecret,
    );
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
 * roles, tenant }` (the roles from `rolesClaim`, the tenant, when the token names one, from
 * `tenantClaim`).
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
  const tenantClaim = options.tenantClaim ?? authDefaults.tenantClaim;
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
      payload = (await jwtVerify(token, key, verifyOptions)).payload;
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
    const tenant = tenantFromClaims(payload, tenantClaim);
    req.user = {
      id: String(id),
      claims: payload,
      roles: rolesFromClaims(payload, rolesClaim),
      ...(tenant === undefined ? {} : { tenant }),
    };
    // Run after the idempotency guard, a caller is refused rather than keyed as someone else.
    const refusal = lateAuthenticationRefusal(req);
    return refusal ? next(refusal) : next();
  };
}
