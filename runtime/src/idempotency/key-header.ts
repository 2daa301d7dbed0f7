// Reading the key out of its header. The IETF draft's `Idempotency-Key` carries a Structured
// Field string (`Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"`): on that header the
// quotes and escapes are not part of the key, so `"x"` and `x` name the same key. Node hands
// header bytes over as latin1 (one character per byte); the key is those bytes read as UTF-8.
import { isUtf8 } from 'node:buffer';
import { parseItem } from 'structured-headers';
import type { KeyRule } from './problems.js';
import type { GuardRuntime } from './registration.js';

/** The header the IETF HTTPAPI draft "The Idempotency-Key HTTP Header Field" defines. */
export const STANDARD_KEY_HEADER = 'Idempotency-Key';

/** What `readKey` answers for a quoted value that is not a valid Structured Field string. */
export const MALFORMED_KEY: unique symbol = Symbol('malformed idempotency key');

/**
 * The key a header value carries: the value itself, or on the standard header and when it opens
 * with a quote, the string inside (RFC 9651 `sf-string`: printable ASCII, `\"` and `\\` escapes,
 * no parameters). `null` when the header is absent or repeated.
 */
export function readKey(
  value: string | string[] | undefined,
  structured: boolean,
): string | null | typeof MALFORMED_KEY {
  if (typeof value !== 'string') return null;
  if (!structured || value.charCodeAt(0) !== 0x22 /* " */) return value;
  try {
    const [item, parameters] = parseItem(value);
    return typeof item === 'string' && parameters.size === 0 ? item : MALFORMED_KEY;
  } catch {
    return MALFORMED_KEY;
  }
}

const BEYOND_ASCII = /[\u0080-\u00ff]/;

/** A key as characters, with the number of bytes it was sent in. */
export interface DecodedKey {
  readonly key: string;
  /** UTF-8 bytes of the key as sent (the quotes of the string form not counted). */
  readonly bytes: number;
}

/**
 * The key's characters and byte length. Node reads each header byte as one latin1 character, so
 * `raw.length` is the number of bytes sent, and a key past ASCII is decoded as the UTF-8 it was
 * sent as (a CJK character is then one character, not three). `undefined` when the bytes are not
 * valid UTF-8.
 */
export function decodeKey(raw: string): DecodedKey | undefined {
  if (!BEYOND_ASCII.test(raw)) return { key: raw, bytes: raw.length };
  const bytes = Buffer.from(raw, 'latin1');
  return isUtf8(bytes) ? { key: bytes.toString('utf8'), bytes: bytes.length } : undefined;
}

/**
 * Presence, encoding, length and pattern, in that order (the string form is checked before):
 * the decoded key, or the rule it breaks. The length counts UTF-8 bytes as sent.
 */
export function checkKey(raw: string | null, runtime: GuardRuntime): DecodedKey | KeyRule {
  if (raw === null || raw.trim() === '') return 'required';
  const decoded = decodeKey(raw);
  if (decoded === undefined) return 'utf-8';
  if (decoded.bytes > runtime.options.maxIdempotencyKeyLength) return 'max-length';
  if (!runtime.matches(decoded.key)) return 'pattern';
  return decoded;
}
