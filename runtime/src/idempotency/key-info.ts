// Builds what a store receives for one request: key, method, route template and caller scope,
// with the composite key stores hash and the log-safe form of the key.
import { hash } from 'node:crypto';
import type { IdempotentKeyInfo } from './store.js';

/**
 * True for the characters that could forge or split a log line: CR, LF and every other C0/C1
 * control character (`\p{Cc}`: U+0000-U+001F, U+007F-U+009F), plus the line and paragraph
 * separators U+2028/U+2029 that some log viewers also break lines on.
 */
function unsafeForLogs(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/** The key with every character that could forge or split a log line removed. */
export function safeKeyOf(key: string | null): string {
  if (key === null) return '';
  // A scan by code unit: every unsafe character is a single UTF-16 unit, and the common key has
  // none, so it is returned as it is without building a new string.
  for (let i = 0; i < key.length; i++) {
    if (unsafeForLogs(key.charCodeAt(i))) {
      let safe = key.slice(0, i);
      for (let j = i + 1; j < key.length; j++) {
        if (!unsafeForLogs(key.charCodeAt(j))) safe += key[j];
      }
      return safe;
    }
  }
  return key;
}

/**
 * The key information the guard builds. Besides the `IdempotentKeyInfo` members it remembers its
 * storage key, so a store hashes the composite key once per request, not once per store call.
 */
class KeyInfo implements IdempotentKeyInfo {
  readonly compositeKey: string;
  readonly safeKey: string;
  private storedUnder: string | undefined = undefined;
  private storedPrefix: string | undefined = undefined;
  private heldUnder: string | undefined = undefined;
  private heldPrefix: string | undefined = undefined;

  constructor(
    readonly idempotentKey: string | null,
    readonly method: string,
    readonly endpoint: string,
    readonly scope: string,
    readonly fingerprint: string | null,
  ) {
    this.compositeKey = `${scope}:${method}:${endpoint}:${idempotentKey ?? ''}`;
    this.safeKey = safeKeyOf(idempotentKey);
  }

  storageKey(cachePrefix: string): string {
    if (this.storedPrefix !== cachePrefix) {
      this.storedUnder = hashedStorageKey(cachePrefix, this.compositeKey);
      this.storedPrefix = cachePrefix;
    }
    return this.storedUnder!;
  }

  inProcessKey(cachePrefix: string): string {
    if (this.heldPrefix !== cachePrefix) {
      this.heldUnder = makeInProcessKey(cachePrefix, this);
      this.heldPrefix = cachePrefix;
    }
    return this.heldUnder!;
  }
}

/** Composite keys up to this many characters are in-process keys as they are; longer ones are hashed. */
const MAX_PLAIN_KEY = 96;

function makeInProcessKey(cachePrefix: string, keyInfo: Pick<IdempotentKeyInfo, 'compositeKey'>) {
  if (keyInfo.compositeKey.length > MAX_PLAIN_KEY) return storageKey(cachePrefix, keyInfo);
  // Joined from its parts, not concatenated: a joined string is one flat string, while V8 keeps a
  // concatenation as a tree of its parts (a rope), which kept as a map key for hours costs a few
  // hundred bytes more per key and keeps every part alive.
  if (keyInfo instanceof KeyInfo) {
    const { scope, method, endpoint, idempotentKey } = keyInfo;
    return [cachePrefix, scope, method, endpoint, idempotentKey ?? ''].join(':');
  }
  return [cachePrefix, keyInfo.compositeKey].join(':');
}

/**
 * The key the memory store keeps an entry under: the prefix and the composite key itself, which
 * spares a SHA-256 per request (nothing leaves the process, so nothing needs hiding). A composite
 * key longer than 96 characters goes under its storage key (`storageKey`, 69 characters with the
 * default prefix), so a long key or scope takes no more memory than a hashed one. The two forms
 * never meet: a composite key holds at least three colons, the digest of a storage key none. Like
 * the storage key, it is made once per request.
 */
export function inProcessKey(
  cachePrefix: string,
  keyInfo: Pick<IdempotentKeyInfo, 'compositeKey'>,
): string {
  return keyInfo instanceof KeyInfo
    ? keyInfo.inProcessKey(cachePrefix)
    : makeInProcessKey(cachePrefix, keyInfo);
}

/** `<cachePrefix>:<sha256 hex of compositeKey>`. */
function hashedStorageKey(cachePrefix: string, compositeKey: string): string {
  return `${cachePrefix}:${hash('sha256', compositeKey, 'hex')}`;
}

/**
 * The storage key of a composite key: `<cachePrefix>:<sha256 hex of the composite key>`.
 * The separator is a colon. The original key, scope and endpoint cannot be rebuilt from it.
 */
export function storageKey(
  cachePrefix: string,
  keyInfo: Pick<IdempotentKeyInfo, 'compositeKey'>,
): string {
  return keyInfo instanceof KeyInfo
    ? keyInfo.storageKey(cachePrefix)
    : hashedStorageKey(cachePrefix, keyInfo.compositeKey);
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
  fingerprint: string | null = null,
): IdempotentKeyInfo {
  return new KeyInfo(
    idempotentKey,
    method.toUpperCase(),
    endpoint.toUpperCase(),
    scope,
    fingerprint,
  );
}
