// The request fingerprint stored with a key's reservation: it tells a retry of the same request
// from a key reused for a different one (answered 422), whether the first is in flight or done.
import { createHash, hash } from 'node:crypto';
import type { Request } from 'express';
import { configure } from 'safe-stable-stringify';

// Keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body; a cycle (only
// possible in a body some middleware built) becomes a marker instead of a throw.
const canonicalJson = configure({ deterministic: true, circularValue: '[Circular]', bigint: true });

/** What `fingerprintRequest` leaves out of, or adds to, the default fingerprint. */
export interface FingerprintParts {
  /**
   * Top-level fields of a JSON object body left out (a client timestamp, a nonce), so a retry
   * that changes only them still counts as the same request.
   * @default []
   */
  ignoreBodyFields?: readonly string[];
  /**
   * Anything else the request's identity depends on (a header, an API version); its canonical
   * JSON is added to the fingerprint.
   * @default undefined (nothing added)
   */
  extra?: unknown;
}

const NO_FIELDS: readonly string[] = Object.freeze([]);
const NO_PARTS: FingerprintParts = Object.freeze({});

/** Computes a request's fingerprint; the guard compares the strings for equality only. */
export type RequestFingerprint = (req: Request) => string;

function withoutFields(body: object, fields: readonly string[]): object {
  if (fields.length === 0 || Array.isArray(body)) return body;
  const kept: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of fields) delete kept[field];
  return kept;
}

/**
 * The body as the fingerprint sees it, tagged by kind so a text body `1` and a JSON body `1`
 * differ: a parsed JSON (or urlencoded) body in canonical JSON, a text body as it is, none as `-`.
 * Raw bytes (`express.raw()`) are hashed separately, as bytes.
 */
function bodyForm(body: unknown, ignore: readonly string[]): string {
  if (body === undefined || body === null) return '-';
  if (typeof body === 'string') return `t${body}`;
  if (typeof body === 'object') return `j${canonicalJson(withoutFields(body, ignore))}`;
  return `j${canonicalJson(body) ?? ''}`;
}

/**
 * The default fingerprint: the hex SHA-256 of the method, the path as sent with its parameters
 * and query string (`req.originalUrl`, so `/orders/1` and `/orders/2` differ), and a canonical
 * form of the parsed body (JSON with sorted keys; a text body as it is; raw bytes as bytes).
 * Headers are not included. The body must be parsed before the guard runs to count.
 *
 * @example
 * // Leave a client timestamp out, and add an API version header:
 * options.requestFingerprint = (req) =>
 *   fingerprintRequest(req, { ignoreBodyFields: ['sentAt'], extra: req.get('Api-Version') });
 */
export function fingerprintRequest(req: Request, parts: FingerprintParts = NO_PARTS): string {
  const head = `${req.method}\n${req.originalUrl}\n`;
  const extra = parts.extra === undefined ? '' : `\n${canonicalJson(parts.extra) ?? ''}`;
  const body: unknown = req.body;
  if (Buffer.isBuffer(body)) {
    return createHash('sha256').update(head).update('b').update(body).update(extra).digest('hex');
  }
  return hash('sha256', head + bodyForm(body, parts.ignoreBodyFields ?? NO_FIELDS) + extra, 'hex');
}

/** The default `requestFingerprint` option: `fingerprintRequest` with nothing left out. */
export function defaultRequestFingerprint(req: Request): string {
  return fingerprintRequest(req);
}
