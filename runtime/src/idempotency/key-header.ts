// Reading the key out of its header. The IETF draft's `Idempotency-Key` carries a Structured
// Field string (`Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"`): on that header the
// quotes and escapes are not part of the key, so `"x"` and `x` name the same key.
import { parseItem } from 'structured-headers';

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
