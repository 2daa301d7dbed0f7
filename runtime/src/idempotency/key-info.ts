// Builds what a store receives for one request: key, method, route template and caller scope,
// with the composite key stores hash and the log-safe form of the key.
import type { IdempotentKeyInfo } from './store.js';

// CR, LF and every other C0/C1 control character (\p{Cc}), plus the line and paragraph
// separators U+2028/U+2029 that some log viewers also break lines on.
const UNSAFE_FOR_LOGS = /[\p{Cc}\u2028\u2029]/gu;

/** The key with every character that could forge or split a log line removed. */
export function safeKeyOf(key: string | null): string {
  return key === null ? '' : key.replace(UNSAFE_FOR_LOGS, '');
}

/**
 * The key information of a request.
 * `compositeKey` is `<scope>:<METHOD>:<ENDPOINT>:<key>`; the endpoint is upper-cased so that
 * `/api/items` and `/api/Items` (one route under Express's default case-insensitive routing) are
 * one endpoint.
 *
 * @example
 * buildKeyInfo('order-1', 'post', '/api/items', 'user:42').compositeKey
 * // 'user:42:POST:/API/ITEMS:order-1'
 */
export function buildKeyInfo(
  idempotentKey: string | null,
  method: string,
  endpoint: string,
  scope: string,
): IdempotentKeyInfo {
  const upperMethod = method.toUpperCase();
  const upperEndpoint = endpoint.toUpperCase();
  return {
    idempotentKey,
    method: upperMethod,
    endpoint: upperEndpoint,
    scope,
    compositeKey: `${scope}:${upperMethod}:${upperEndpoint}:${idempotentKey ?? ''}`,
    safeKey: safeKeyOf(idempotentKey),
  };
}
