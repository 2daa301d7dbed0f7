// Entity tags (RFC 9110 section 8.8.3) of single-row responses: a strong validator of the
// representation sent, carried from the loaded row to the DTO built from it, sent as `ETag` and
// compared with `If-Match` before a change. A row carries how to digest it (its tag source); the
// DTO built from it carries the digest of the row with what the DTO nests (related rows,
// collections), made once, when the DTO is.
import type { Response } from 'express';

// Registered (Symbol.for), so a runtime loaded twice in one process still finds its own tags.
const ENTITY_TAG = Symbol.for('slicekit.entityTag');

/**
 * How a loaded row's entity tag is made: a digest of its stored values and of `nested`, the
 * values the representation adds to the row (nested objects, collections), in a fixed order.
 */
export type EntityTagSource = (nested: readonly unknown[]) => string;

/**
 * The entity tag `value` carries: a DTO's, or a row's own (its stored values alone, without what
 * a DTO of it nests).
 */
export function entityTagOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const tag = (value as { [ENTITY_TAG]?: unknown })[ENTITY_TAG];
  if (typeof tag === 'function') return (tag as EntityTagSource)([]);
  return typeof tag === 'string' ? tag : undefined;
}

function hide<T extends object>(target: T, value: string | EntityTagSource): T {
  Object.defineProperty(target, ENTITY_TAG, { value, enumerable: false, configurable: true });
  return target;
}

/**
 * Gives `target` the entity tag `tag` as a hidden property (never serialised) and returns it.
 * `undefined` leaves it untagged.
 */
export function withEntityTag<T extends object>(target: T, tag: string | undefined): T {
  return tag === undefined ? target : hide(target, tag);
}

/**
 * Gives a loaded row its tag source (hidden, never serialised) and returns it. Nothing is digested
 * yet: the DTO built from the row is (`tagRepresentation`), once what it nests is known.
 */
export function withEntityTagSource<T extends object>(row: T, source: EntityTagSource): T {
  return hide(row, source);
}

/**
 * Tags `dto`, built from `row`, with the digest of the row and of the DTO's `nested` properties
 * (its related rows and collections, as sent), when the row carries a tag source (a row the
 * repository loaded); a tag the row already holds goes over as it is. Returns `dto`.
 *
 * @example
 * const dto = tagRepresentation(rowToDto(members, row), row, ['customer', 'lines']);
 */
export function tagRepresentation<T extends object>(
  dto: T,
  row: object,
  nested: readonly string[],
): T {
  const tag = (row as { [ENTITY_TAG]?: unknown })[ENTITY_TAG];
  if (typeof tag === 'string') return hide(dto, tag);
  if (typeof tag !== 'function') return dto;
  const values = nested.map((property) => (dto as Record<string, unknown>)[property]);
  return hide(dto, (tag as EntityTagSource)(values));
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
