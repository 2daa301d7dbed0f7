// Options of the idempotency guard: the type an app configures, the defaults in one place, and
// the resolution (durations, compiled pattern) that the start-up step validates.
import type { Request } from 'express';
import { durationMs, type Duration } from './duration.js';
import { defaultRequestFingerprint, type RequestFingerprint } from './fingerprint.js';
import { DEFAULT_KEY_PATTERN } from './pattern.js';
import { defaultLogger, type IdempotencyLogger } from './logger.js';

/** How a duplicate of a completed request is answered. */
export const IdempotentConflictHandling = {
  /** Answer 409 Conflict (problem+json). */
  ConflictResponse: 'ConflictResponse',
  /** Replay the first response: status code, body bytes and content type. */
  CachedResult: 'CachedResult',
} as const;

export type IdempotentConflictHandling =
  (typeof IdempotentConflictHandling)[keyof typeof IdempotentConflictHandling];

/**
 * Settings for the JSON the guard writes itself (its 400 and 409 problem bodies). Cached bodies
 * are never re-serialized: the guard records the exact bytes the handler sent (`res.json` has
 * already applied the app's `json replacer` and `json spaces` settings), so replays are identical.
 */
export interface JsonSerializerOptions {
  /** Passed to `JSON.stringify`. @default undefined */
  replacer?: (this: unknown, key: string, value: unknown) => unknown;
  /** Passed to `JSON.stringify`. @default undefined (compact) */
  space?: string | number;
}

/** Returns the caller scope of a request; `null`/`undefined`/`''` means unscoped. */
export type KeyScopeResolver = (req: Request) => string | null | undefined;

/** The guard's options. A registration's `configure` callback receives them with defaults set. */
export interface IdempotencyOptions {
  /** Header the key is read from (case-insensitive). @default 'X-Idempotency-Key' */
  idempotencyHeaderKey: string;
  /**
   * A key must match this regular expression, in RE2 syntax (matched in linear time; no
   * backreferences or lookaround). @default '^[a-zA-Z0-9\\-_]+$'
   */
  idempotencyKeyPattern: string;
  /**
   * Longest accepted key, in bytes as sent (UTF-8; the quotes of the standard header's string
   * form not counted): 255 ASCII characters, or 85 CJK characters. @default 255
   */
  maxIdempotencyKeyLength: number;
  /** How a duplicate of a completed request is answered. @default 'ConflictResponse' */
  conflictHandling: IdempotentConflictHandling;
  /** Absolute lifetime of a cached result (ms or `'4h'`); afterwards the key is new. @default '4h' */
  expiration: Duration;
  /** How long an in-flight reservation blocks retries (ms or `'30s'`). @default '30s' */
  inFlightReservationTimeout: Duration;
  /** Lowest cacheable status (inclusive). @default 200 */
  minStatusCodeForCaching: number;
  /** Highest cacheable status (inclusive). @default 299 */
  maxStatusCodeForCaching: number;
  /** Extra cacheable statuses outside the window. @default new Set() */
  additionalCacheableStatusCodes: Set<number>;
  /** Namespaces storage keys: `<cachePrefix>:<sha256 hex>`. @default 'idem' */
  cachePrefix: string;
  /** Settings for the guard's own JSON (problem bodies); must not be null. @default {} */
  jsonSerializerOptions: JsonSerializerOptions | null;
  /** Custom caller scope; when set it replaces the whole default chain. @default null */
  keyScopeResolver: KeyScopeResolver | null;
  /** Enables the `auth:<HMAC of the Authorization header>` link of the scope chain. @default null */
  scopeHmacSecret: string | null;
  /** Enables the `ip:<address>` link of the scope chain (uses `req.ip`). @default false */
  includeClientIpInScope: boolean;
  /**
   * Computes the request's fingerprint, stored with its key: a key reused for a request with
   * another fingerprint answers 422. `null` turns the check off.
   * @default the hex SHA-256 of method, path with query string and canonical body (`fingerprintRequest`)
   */
  requestFingerprint: RequestFingerprint | null;
  /**
   * Response headers recorded with a response and sent again, byte for byte, on its replay
   * (case-insensitive names). Content-Type is always replayed; Content-Length is recomputed.
   * @default ['Location', 'Content-Location', 'ETag', 'Last-Modified', 'Link']
   */
  replayedHeaders: string[];
  /**
   * Pino-compatible logger for the start-up warning and recording failures.
   * @default a logger writing warn and error lines as JSON to stderr
   */
  logger: IdempotencyLogger;
}

/** The headers a replay carries again unless `replayedHeaders` says otherwise. */
export const DEFAULT_REPLAYED_HEADERS: readonly string[] = Object.freeze([
  'Location',
  'Content-Location',
  'ETag',
  'Last-Modified',
  'Link',
]);

/** A registration's options callback: change the fields you need. */
export type ConfigureIdempotency = (options: IdempotencyOptions) => void;

/**
 * Preset for the IETF HTTPAPI draft's standard header: reads the key from `Idempotency-Key`,
 * where a Structured Field string (`"8e03978e-..."`) is unquoted before use, so `"x"` and `x`
 * are one key. Other options keep their values; call it first in a callback to change more.
 *
 * @example
 * addIdempotentKey(app, standardIdempotencyKeyHeader);
 * addIdempotentKey(app, (options) => {
 *   standardIdempotencyKeyHeader(options);
 *   options.conflictHandling = 'CachedResult';
 * });
 */
export function standardIdempotencyKeyHeader(options: IdempotencyOptions): void {
  options.idempotencyHeaderKey = 'Idempotency-Key';
}

/** Fresh options holding every default (a new object per call, so callbacks cannot leak). */
export function defaultIdempotencyOptions(): IdempotencyOptions {
  return {
    idempotencyHeaderKey: 'X-Idempotency-Key',
    idempotencyKeyPattern: DEFAULT_KEY_PATTERN,
    maxIdempotencyKeyLength: 255,
    conflictHandling: IdempotentConflictHandling.ConflictResponse,
    expiration: '4h',
    inFlightReservationTimeout: '30s',
    minStatusCodeForCaching: 200,
    maxStatusCodeForCaching: 299,
    additionalCacheableStatusCodes: new Set(),
    cachePrefix: 'idem',
    jsonSerializerOptions: {},
    keyScopeResolver: null,
    scopeHmacSecret: null,
    includeClientIpInScope: false,
    requestFingerprint: defaultRequestFingerprint,
    replayedHeaders: [...DEFAULT_REPLAYED_HEADERS],
    logger: defaultLogger,
  };
}

/** Options after validation: durations in milliseconds, the status set flattened. */
export interface ResolvedIdempotencyOptions extends Readonly<
  Omit<
    IdempotencyOptions,
    | 'expiration'
    | 'inFlightReservationTimeout'
    | 'additionalCacheableStatusCodes'
    | 'jsonSerializerOptions'
    | 'replayedHeaders'
  >
> {
  readonly expirationMs: number;
  readonly inFlightReservationTimeoutMs: number;
  readonly additionalCacheableStatusCodes: ReadonlySet<number>;
  readonly jsonSerializerOptions: JsonSerializerOptions;
  readonly replayedHeaders: readonly string[];
}

/** Converts durations; call only after `validateIdempotencyOptions` found nothing. */
export function resolveIdempotencyOptions(options: IdempotencyOptions): ResolvedIdempotencyOptions {
  const { expiration, inFlightReservationTimeout, additionalCacheableStatusCodes, ...rest } =
    options;
  return Object.freeze({
    ...rest,
    expirationMs: durationMs(expiration),
    inFlightReservationTimeoutMs: durationMs(inFlightReservationTimeout),
    additionalCacheableStatusCodes: new Set(additionalCacheableStatusCodes ?? []),
    jsonSerializerOptions: options.jsonSerializerOptions ?? {},
    // Copied and frozen: a later change to the caller's array must not change what is recorded.
    replayedHeaders: Object.freeze([...options.replayedHeaders]),
  });
}
