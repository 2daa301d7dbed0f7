// The typed client of this app's API: openapi-fetch over the types `npm run client` writes from the
// OpenAPI document (client/schema.ts), with helpers for list queries, problems and idempotency
// keys. It runs in a browser, in Node 20 or later and in tests; yours to change.
//
//   const api = createApi({ baseUrl: 'http://localhost:3000' });
//   const { data, error } = await api.GET('/v1/products', { params: { query: { pageSize: 5 } } });
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

/** The app's API: `api.GET(path, init)`, `api.POST(...)`..., each typed from the document. */
export type Api = Client<paths>;

/** A schema of the document by name: `Schema<'ProductDto'>`, `Schema<'CreateProductRequest'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** Every error answer: RFC 9457 problem details with a stable `code` to branch on. */
export type Problem = Schema<'ProblemDetails'>;

export interface ApiOptions {
  /** The app's root URL (`http://localhost:3000`); `''` for the page's own origin. */
  baseUrl: string;
  /** The caller's bearer token, or a function reading the current one before each request. */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** @default globalThis.fetch */
  fetch?: ClientOptions['fetch'];
}

/** The client of the app at `baseUrl`, sending `token` as `Authorization: Bearer <token>`. */
export function createApi({ baseUrl, token, fetch }: ApiOptions): Api {
  const api = createClient<paths>({ baseUrl, ...(fetch ? { fetch } : {}) });
  if (token !== undefined) {
    api.use({
      async onRequest({ request }) {
        const current = typeof token === 'function' ? await token() : token;
        if (current) request.headers.set('Authorization', `Bearer ${current}`);
        return request;
      },
    });
  }
  return api;
}

/** One field's error in a 400 `crud.invalid_request` or a 422 `crud.invalid_reference`. */
export interface FieldError {
  /** The request's property, dotted for a nested one (`lines.0.sku`). */
  field: string;
  message: string;
  /** The rule it broke: `required`, `maxLength`, `reference`... */
  keyword: string;
}

/** The field errors a problem lists (its `errors` member), or none. */
export function fieldErrors(problem: Problem): FieldError[] {
  const { errors } = problem;
  if (!Array.isArray(errors)) return [];
  return errors.filter(
    (each): each is FieldError =>
      typeof each === 'object' &&
      each !== null &&
      typeof (each as Partial<FieldError>).field === 'string' &&
      typeof (each as Partial<FieldError>).message === 'string',
  );
}

/** Whether `value` (a caught error, a body of unknown origin) is a problem of this API. */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const { type, status, code } = value as Partial<Problem>;
  return typeof type === 'string' && typeof status === 'number' && typeof code === 'string';
}

/** The query a list path takes: `ListQuery<'/v1/orders'>` (paging, filter, search, order, cursor). */
export type ListQuery<Path extends keyof paths> = paths[Path] extends {
  get: { parameters: { query?: infer Query } };
}
  ? NonNullable<Query>
  : never;

/** The operations of a list `filter`, as the list routes read them. */
export type FilterOperation =
  | 'Equal'
  | 'NotEqual'
  | 'GreaterThan'
  | 'GreaterThanOrEqual'
  | 'LessThan'
  | 'LessThanOrEqual'
  | 'Contains'
  | 'NotContains'
  | 'StartsWith'
  | 'EndsWith'
  | 'In'
  | 'NotIn'
  | 'IsNull'
  | 'IsNotNull';

/** A value to filter by; a date is sent as its ISO 8601 instant. */
export type FilterValue = string | number | boolean | Date;

type Scalar = string | number | boolean | null;
type ScalarKeys<T> = {
  [K in keyof T & string]: T[K] extends Scalar ? K : never;
}[keyof T & string];
type Member<T> = NonNullable<T extends readonly (infer Element)[] ? Element : T>;

/**
 * The names a list of `Dto` filters by: its scalar members, and the scalar members of its
 * relations and collections as dotted paths (`customer.name`, `tags.name`).
 */
export type FilterField<Dto> =
  | ScalarKeys<Dto>
  | {
      [K in keyof Dto & string]: Member<Dto[K]> extends Scalar
        ? never
        : `${K}.${ScalarKeys<Member<Dto[K]>>}`;
    }[keyof Dto & string];

function filterText(value: FilterValue): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * One `filter` of a list query, `field:operation:value`: `where('price', 'GreaterThan', 300)`,
 * `where('status', 'In', ['draft', 'placed'])`, `where('note', 'IsNull')`. Name the DTO to have
 * its fields checked: `where<Schema<'OrderDto'>>('customer.name', 'StartsWith', 'An')`.
 */
export function where<Dto = Record<string, Scalar>>(
  field: FilterField<Dto>,
  operation: 'IsNull' | 'IsNotNull',
): string;
export function where<Dto = Record<string, Scalar>>(
  field: FilterField<Dto>,
  operation: 'In' | 'NotIn',
  values: readonly FilterValue[],
): string;
export function where<Dto = Record<string, Scalar>>(
  field: FilterField<Dto>,
  operation: Exclude<FilterOperation, 'IsNull' | 'IsNotNull' | 'In' | 'NotIn'>,
  value: FilterValue,
): string;
export function where(
  field: string,
  operation: FilterOperation,
  value?: FilterValue | readonly FilterValue[],
): string {
  if (value === undefined) return `${field}:${operation}`;
  if (!Array.isArray(value)) return `${field}:${operation}:${filterText(value as FilterValue)}`;
  const values = value.map(filterText);
  // The list splits In and NotIn on every comma: such a value would become two.
  const split = values.find((each) => each.includes(','));
  if (split !== undefined) {
    throw new RangeError(`${field}: "${split}" holds a comma, which ${operation} cannot take`);
  }
  return `${field}:${operation}:${values.join(',')}`;
}

/** The paging members of a list query. */
export interface CursorQuery {
  cursor?: string;
  pageNumber?: number;
}

/**
 * The query of the page after `page` by its cursor (the same filters, search and order; no
 * `pageNumber`), or undefined after the last page: for a "more" button.
 */
export function nextPage<Query extends CursorQuery>(
  query: Query,
  page: { nextCursor?: string | null },
): Query | undefined {
  if (!page.nextCursor) return undefined;
  const { pageNumber: _pageNumber, ...rest } = query;
  return { ...rest, cursor: page.nextCursor } as Query;
}

/**
 * Every page of a list from `query`'s on, by the cursors: each answer as `read` gives it, the last
 * one being the last page or a problem.
 *
 *   for await (const { data, error } of pages(query, (query) =>
 *     api.GET('/v1/products', { params: { query } }))) { ... }
 */
export async function* pages<
  Query extends CursorQuery,
  Answer extends { data?: { nextCursor?: string | null } },
>(query: Query, read: (query: Query) => Promise<Answer>): AsyncGenerator<Answer> {
  for (let next: Query | undefined = query; next;) {
    const answer = await read(next);
    yield answer;
    next = answer.data ? nextPage(next, answer.data) : undefined;
  }
}

/** The whole DTO among a page's item types: `<Dto>`, not `<Dto>Selection` (nothing required). */
type Whole<Item> = Item extends unknown ? (Partial<Item> extends Item ? never : Item) : never;

/**
 * The items of a list page read without `select`, typed as the whole DTO. The document types an
 * item as `<Dto>` or `<Dto>Selection`, since a page read with `select` carries only the members
 * named; a page read without one carries every member. Throws for a query with a `select`.
 *
 *   const { data } = await api.GET('/v1/products', { params: { query } });
 *   if (data) for (const product of wholeItems(query, data)) console.log(product.name);
 */
export function wholeItems<Item>(
  query: { select?: unknown },
  page: { items: readonly Item[] },
): ([Whole<Item>] extends [never] ? Item : Whole<Item>)[] {
  const { select } = query;
  if (Array.isArray(select) ? select.length > 0 : select !== undefined && String(select).trim()) {
    throw new RangeError('a page read with select carries only the members named');
  }
  return page.items as ([Whole<Item>] extends [never] ? Item : Whole<Item>)[];
}

/** The header the operations an entity spec lists under `idempotent` require (src/idempotency.ts). */
export const idempotencyHeader = 'X-Idempotency-Key';

/**
 * The idempotency key header of one attempt, for `params.header` of an idempotent operation:
 * `api.POST('/v1/orders', { params: { header: idempotencyKey() }, body })`. Send the same key to
 * retry that attempt (the app answers with the first response), a new one for a new attempt.
 * `crypto.randomUUID` needs a secure context in a browser (https, or localhost).
 */
export function idempotencyKey(key: string = crypto.randomUUID()): {
  [idempotencyHeader]: string;
} {
  return { [idempotencyHeader]: key };
}
