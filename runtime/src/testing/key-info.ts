// Builds the key information a store receives, the way the guard does, for store tests.
import type { IdempotentKeyInfo } from '../idempotency/store.js';

/** Where a test key "came from"; every member defaults to a plain anonymous POST. */
export interface KeyInfoParts {
  /** @default '' */
  scope?: string;
  /** @default 'POST' */
  method?: string;
  /** @default '/ORDERS' */
  endpoint?: string;
}

/**
 * The `IdempotentKeyInfo` for `key`, with `compositeKey` as `<scope>:<METHOD>:<ENDPOINT>:<key>`.
 *
 * @example
 * await store.isKeyProcessed(conformanceKeyInfo('order-1', { scope: 'user:42' }));
 */
export function conformanceKeyInfo(key: string, parts: KeyInfoParts = {}): IdempotentKeyInfo {
  const scope = parts.scope ?? '';
  const method = (parts.method ?? 'POST').toUpperCase();
  const endpoint = (parts.endpoint ?? '/ORDERS').toUpperCase();
  return {
    idempotentKey: key,
    endpoint,
    method,
    scope,
    compositeKey: `${scope}:${method}:${endpoint}:${key}`,
    safeKey: key.replace(/[\p{Cc}\u2028\u2029]/gu, ''),
  };
}
