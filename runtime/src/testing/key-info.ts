// Builds the key information a store receives, the way the guard does, for store tests.
import { buildKeyInfo, type IdempotentKeyInfo } from '../idempotency/index.js';

/** Where a test key "came from"; every member defaults to a plain anonymous POST. */
export interface KeyInfoParts {
  /** @default '' */
  scope?: string;
  /** @default 'POST' */
  method?: string;
  /** @default '/ORDERS' */
  endpoint?: string;
  /** The request fingerprint the store keeps with the key. @default null */
  fingerprint?: string | null;
}

/**
 * The `IdempotentKeyInfo` for `key`, with `compositeKey` as `<scope>:<METHOD>:<ENDPOINT>:<key>`.
 *
 * @example
 * await store.isKeyProcessed(conformanceKeyInfo('order-1', { scope: 'user:42' }));
 */
export function conformanceKeyInfo(key: string, parts: KeyInfoParts = {}): IdempotentKeyInfo {
  return buildKeyInfo(
    key,
    parts.method ?? 'POST',
    parts.endpoint ?? '/ORDERS',
    parts.scope ?? '',
    parts.fingerprint ?? null,
  );
}
