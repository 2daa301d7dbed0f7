// The response the recorder hands its store, built from what the handler wrote: status, body
// bytes, content type and the allow-listed headers, each value as its bytes went on the wire.
import type { Response } from 'express';
import type { GuardRuntime } from './registration.js';
import type { ResponseHeader } from './store.js';

const NO_HEADERS: readonly ResponseHeader[] = Object.freeze([]);

/**
 * Whether Node sent a response's header block as UTF-8. Node writes it as latin1 (one byte per
 * character), except when the first data written is a string in UTF-8 on a response that is not
 * chunked: then it sends the header block and that string in one write, in UTF-8, and a header
 * character above U+007F goes out as two bytes. A replay writes a Buffer, so latin1; to send the
 * same bytes, it must be given the UTF-8 bytes as latin1 characters (`wireValue`).
 */
export function headerBlockIsUtf8(chunk: unknown, encoding: unknown, chunked: boolean): boolean {
  if (chunked || typeof chunk !== 'string' || chunk.length === 0) return false;
  return typeof encoding === 'function' || isUtf8(encoding);
}

/** True for the encodings Node writes a string in as UTF-8 (none given means UTF-8). */
export function isUtf8(encoding: unknown): boolean {
  return encoding === undefined || (typeof encoding === 'string' && /^utf-?8$/i.test(encoding));
}

const BEYOND_ASCII = /[\u0080-\uffff]/;

/** Matches no non-empty string. */
const NOTHING = /$^/;

/**
 * The value as its bytes went on the wire, one latin1 character per byte, as one flat string: a
 * value built by concatenation (Express's `ETag`, `W/"` + length + hash + `"`) is a tree of its
 * parts in V8, about 110 bytes more per recorded header for as long as the memory store keeps the
 * response; a `replace` that matches nothing copies it flat (about 0.1 µs).
 */
function wireValue(value: string, utf8: boolean): string {
  if (!utf8 || !BEYOND_ASCII.test(value)) return value.replace(NOTHING, '');
  return Buffer.from(value, 'utf8').toString('latin1');
}

/**
 * The allow-listed headers the response carries, in the order the handler set them, one pair per
 * value (a header set to an array, such as two `Link`s, gives two pairs). `listed` maps each
 * lower-case name of the list to its spelling there, which the pair keeps. Each value is the
 * bytes that went on the wire, as latin1 characters, which a replay sends again unchanged.
 */
export function recordedHeaders(
  res: Response,
  listed: ReadonlyMap<string, string>,
  utf8HeaderBlock = false,
): readonly ResponseHeader[] {
  if (listed.size === 0) return NO_HEADERS;
  let headers: ResponseHeader[] | undefined;
  for (const lower of res.getHeaderNames()) {
    const name = listed.get(lower);
    if (name === undefined) continue;
    const value = res.getHeader(lower)!;
    headers ??= [];
    if (Array.isArray(value)) {
      for (const item of value) headers.push([name, wireValue(item, utf8HeaderBlock)]);
    } else {
      headers.push([name, wireValue(String(value), utf8HeaderBlock)]);
    }
  }
  return headers ?? NO_HEADERS;
}

/** True when `status` is in the cacheable window or listed as an extra cacheable status. */
export function isCacheable(runtime: GuardRuntime, status: number): boolean {
  const { minStatusCodeForCaching: min, maxStatusCodeForCaching: max } = runtime.options;
  return (
    (status >= min && status <= max) || runtime.options.additionalCacheableStatusCodes.has(status)
  );
}

/**
 * Runs a store call so that a synchronous throw (a store that serializes before it returns its
 * promise) becomes a rejection: either way it is logged and the client still gets its response.
 */
export const attempt = <T>(call: () => Promise<T>) => new Promise<T>((ok) => ok(call()));
