// Entity tags (RFC 9110 section 8.8.3) of single-row responses: a strong validator per stored row
// version, carried from the loaded row to the DTO built from it, sent as `ETag` and compared with
// `If-Match` before a change.
import type { Response } from 'express';

// Registered (Symbol.for), so a runtime loaded twice in one process still finds its own tags.
const ENTITY_TAG = Symbol.for('slicekit.entityTag');

/** The entity tag `value` carries (a row the repository loaded, or the DTO built from it). */
export function entityTagOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const tag = (value as { [ENTITY_TAG]?: unknown })[ENTITY_TAG];
  return typeof tag === 'string' ? tag : undefined;
}

/**
 * Gives `target` the entity tag `tag` as a hidden property (never serialised) and returns it.
 * `undefined` leaves it untagged.
 */
export function withEntityTag<T extends object>(target: T, tag: string | undefined): T {
  if (tag !== undefined) {
    Object.defineProperty(target, ENTITY_TAG, {
      value: tag,
      enumerable: false,
      configurable: true,
    });
  }
  return target;
}

/**
 * Whether an `If-Match` header value lets a change of the representation tagged `current` go
 * ahead: `*` matches any current representation, otherwise one listed tag must equal it by
 * strong comparison (a weak tag never matches, RFC 9110 section 13.1.1).
 *
 * @example
 * ifMatchHolds('"a", "b"', '"b"') // true
 */
export function ifMatchHolds(header: string, current: string): boolean {
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  for (const match of trimmed.matchAll(/(W\/)?"[^"]*"/g)) {
    if (!match[1] && match[0] === current) return true;
  }
  return false;
}

/**
 * Sends `dto` as JSON with its `ETag` when it carries one (a DTO built from a row the repository
 * loaded). Express then answers a matching `If-None-Match` on GET with 304.
 *
 * @example
 * sendEntity(res.status(201).location(`/v1/products/${dto.id}`), dto);
 */
export function sendEntity(res: Response, dto: object): void {
  const tag = entityTagOf(dto);
  if (tag) res.setHeader('ETag', tag);
  res.json(dto);
}
