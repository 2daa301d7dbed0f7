// Cursors: an opaque `cursor` naming a row of a list (its order key) and the query it was made
// for. base64url JSON plus an HMAC-SHA256 tag, so a cursor that was altered, cut, or made by
// another list or for another filter, search or order is a 400, never a wrong page.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { coerceValue } from './coerce.js';
import { ProblemError } from '../http/index.js';
import { invalidCursor } from './errors.js';
import { orderKeys, type OrderKey } from './order.js';
import type { ListResource } from './resource.js';
import { readStored } from '../sql/index.js';
import type { FilterScalar, ListCursor, ListFilter, ListFilterGroup, ListQuery } from './types.js';

/** Longest cursor read; longer is a 400 (a text order key may be long, but not this long). */
export const MAX_CURSOR_LENGTH = 8000;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

type KeyValue = string | number | boolean | null;
type QueryShape = Pick<ListQuery, 'filters' | 'groups' | 'select' | 'search' | 'orderBy' | 'desc'>;

/** Only the member types matter to where the keys point, so a plain namer will do. */
const plainNames = { base: (column: string) => column, of: (_: string, column: string) => column };

/** Each list's signing keys by secret, derived once. */
const signingKeys = new WeakMap<object, Map<string | undefined, Buffer>>();

/**
 * The signing key: `secret` when given, else one derived from the list's table and members, the
 * same in every process. The derived key makes a cursor tamper-evident and bound to its list, not
 * unforgeable; a cursor only names where a page starts, and every page still applies the scope.
 */
function signingKey(resource: ListResource<unknown>, secret: string | undefined): Buffer {
  const known = signingKeys.get(resource)?.get(secret);
  if (known) return known;
  const key = deriveKey(resource, secret);
  const keys = signingKeys.get(resource) ?? new Map<string | undefined, Buffer>();
  // A route has one secret; a bounded map keeps a caller passing many from growing it.
  if (keys.size >= 16) keys.clear();
  signingKeys.set(resource, keys.set(secret, key));
  return key;
}

function deriveKey(resource: ListResource<unknown>, secret: string | undefined): Buffer {
  const members = resource.members.map(
    (m) => `${m.property}:${m.kind}${m.kind === 'scalar' ? `:${m.type}` : ''}`,
  );
  return createHash('sha256')
    .update(['slicekit list cursor', secret ?? '', resource.table, ...members].join('\u0000'))
    .digest();
}

const scalarText = (value: unknown): unknown =>
  value instanceof Date
    ? value.toISOString()
    : typeof value === 'object' && value !== null && 'day' in value
      ? `day:${(value as { day: string }).day}`
      : value;

const filterText = (f: ListFilter): string =>
  JSON.stringify([
    f.field,
    f.operation,
    Array.isArray(f.value) ? f.value.map(scalarText) : scalarText(f.value),
  ]);

/** A group in a canonical text: its members in a fixed order (their order does not matter). */
const groupText = (g: ListFilterGroup): string =>
  JSON.stringify([
    g.combine,
    g.members.map((m) => ('combine' in m ? groupText(m) : filterText(m))).sort(),
  ]);

/**
 * A short digest of what chose the rows, their order and their members (not the page size or
 * position). Groups and `select` join it only when given, so earlier cursors stay valid.
 */
function queryDigest(query: QueryShape): string {
  const shape = [
    query.filters.map(filterText).sort(),
    query.search ?? null,
    query.orderBy ?? null,
    !!query.orderBy && query.desc,
    ...(query.groups?.length ? [{ groups: query.groups.map(groupText).sort() }] : []),
    ...(query.select ? [{ select: [...query.select].sort() }] : []),
  ];
  const text = JSON.stringify(shape);
  let digest = digests.get(text);
  if (digest === undefined) {
    digest = createHash('sha256').update(text).digest('base64url').slice(0, 16);
    // Most requests of a list ask the same few shapes (the first page of each order): a bounded
    // map spares their SHA-256, and many distinct filters only empty it now and then.
    if (digests.size >= 512) digests.clear();
    digests.set(text, digest);
  }
  return digest;
}

/** Query digests by the shape's text. */
const digests = new Map<string, string>();

const tagOf = (key: Buffer, body: string) =>
  createHmac('sha256', key).update(body).digest().subarray(0, TAG_BYTES);

/** A row's order-key values as the cursor carries them: the DTO's JSON form. */
function keyValues(keys: readonly OrderKey[], row: Record<string, unknown>): KeyValue[] {
  return keys.map(({ member, rowKey }) => {
    const value = readStored(member.type, row[rowKey]);
    return value instanceof Date ? value.toISOString() : (value as KeyValue);
  });
}

/**
 * Makes the cursors of one page of `query`: the page after (`next`) or before (`previous`) a
 * row. What the cursors share (order keys, query digest, signing key) is worked out once.
 */
export function cursorMaker(
  resource: ListResource<unknown>,
  query: QueryShape,
  secret?: string,
): (row: Record<string, unknown>, direction: ListCursor['direction']) => string {
  const keys = orderKeys(resource, query, plainNames);
  const digest = queryDigest(query);
  const key = signingKey(resource, secret);
  return (row, direction) => {
    const body = Buffer.from(
      JSON.stringify({ d: direction === 'next' ? 'n' : 'p', k: keyValues(keys, row), q: digest }),
    ).toString('base64url');
    return `${body}.${tagOf(key, body).toString('base64url')}`;
  };
}

/** The cursor of the page after (`next`) or before (`previous`) `row`. */
export function makeCursor(
  resource: ListResource<unknown>,
  query: QueryShape,
  row: Record<string, unknown>,
  direction: ListCursor['direction'],
  secret?: string,
): string {
  return cursorMaker(resource, query, secret)(row, direction);
}

function coerceKey(key: OrderKey, value: unknown): FilterScalar | null {
  if (value === null) {
    if (key.member.nullable) return null;
    throw invalidCursor('the cursor holds no value where its order needs one');
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw invalidCursor('the cursor holds a value of the wrong kind');
  }
  try {
    const coerced = coerceValue(key.member, String(value), 'cursor');
    if (typeof coerced === 'object' && !(coerced instanceof Date)) throw new Error('a whole day');
    return coerced;
  } catch (error) {
    if (error instanceof ProblemError || error instanceof Error) {
      throw invalidCursor(`the cursor holds a value that is not one of ${key.member.property}`);
    }
    throw error;
  }
}

/**
 * Reads a `cursor` made for `query` on this list, or throws the 400 `list_query.cursor_invalid`.
 */
export function readCursor(
  resource: ListResource<unknown>,
  query: QueryShape,
  text: string,
  secret?: string,
): ListCursor {
  if (text.length > MAX_CURSOR_LENGTH) throw invalidCursor('the cursor is too long');
  const [body, tag, ...rest] = text.split('.');
  if (!body || !tag || rest.length > 0 || !BASE64URL.test(body) || !BASE64URL.test(tag)) {
    throw invalidCursor('the cursor is not one this list gave out');
  }
  const given = Buffer.from(tag, 'base64url');
  const expected = tagOf(signingKey(resource, secret), body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalidCursor(
      'the cursor is not one this list gave out (altered, cut or from another list)',
    );
  }
  let payload: { d?: unknown; k?: unknown; q?: unknown };
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
  } catch {
    throw invalidCursor('the cursor is not one this list gave out');
  }
  if (payload.q !== queryDigest(query)) {
    throw invalidCursor(
      'the cursor was made for another filter, search, order or select; send the same filter, ' +
        'search, orderBy, desc and select as the page it came from',
    );
  }
  const keys = orderKeys(resource, query, plainNames);
  const values = payload.k;
  if (
    (payload.d !== 'n' && payload.d !== 'p') ||
    !Array.isArray(values) ||
    values.length !== keys.length
  ) {
    throw invalidCursor('the cursor is not one this list gave out');
  }
  return {
    direction: payload.d === 'n' ? 'next' : 'previous',
    values: keys.map((key, i) => coerceKey(key, values[i])),
  };
}
