// A React-Admin data provider for slicekit's `/v1` API: the list contract (pages by number, or by
// cursor once the page before was read, `orderBy`/`desc`, `search`, `filter=field:Operation:value`,
// the total count), `If-Match` from the ETag a row was read with, an idempotency key on the
// operations whose routes require one, and problem+json answers turned into errors React-Admin
// shows (field errors beside the fields). It imports nothing from React-Admin: the shapes below
// are the parts of its `DataProvider` contract this provider fills, so the runtime stays light.

import { AdminHttpError, problemError } from './errors.js';

export { AdminHttpError, fieldErrors, STALE_ROW_MESSAGE } from './errors.js';

/** A row as React-Admin holds it: a DTO, with the ETag it was read with under `ETAG_KEY`. */
export type AdminRecord = { id: string | number } & Record<string, unknown>;

/** Where a row read by `getOne` (or written by `update`) keeps its entity tag. */
export const ETAG_KEY = '@etag';

/** The filter key listing soft-deleted rows too (`include`) or only them (`only`). */
export const DELETED_KEY = '@deleted';

/** Which operations of a resource require an idempotency key (the spec's `idempotent`). */
export interface KeyRequired {
  create?: boolean;
  update?: boolean;
  delete?: boolean;
  action?: boolean;
}

/** Options of `createDataProvider`. */
export interface DataProviderOptions {
  /** The API's base URL. @default '/v1' */
  apiUrl?: string;
  /** The caller's bearer token, read before each request; none: anonymous. */
  token?: () => string | null | undefined;
  /** The header the idempotency key goes in. @default 'X-Idempotency-Key' */
  idempotencyHeader?: string;
  /** Per resource (its URL segment), the operations whose routes require a key. @default {} */
  requiresKey?: Record<string, KeyRequired>;
  /** Sends the request. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** A list query as React-Admin asks it. */
export interface ListParams {
  pagination?: { page: number; perPage: number };
  sort?: { field: string; order: 'ASC' | 'DESC' | string };
  filter?: Record<string, unknown>;
  signal?: AbortSignal;
}

/**
 * An action or an update of a row (`POST /v1/<resource>/{id}/<segment>`) as the admin's buttons
 * call it; the segment `''` is the row's own update (`PUT /v1/<resource>/{id}`).
 */
export interface ActionParams {
  id: string | number;
  /** The route's last segment: `approval`; `''`: the row itself. */
  segment: string;
  verb?: 'POST' | 'PUT' | 'PATCH';
  data?: Record<string, unknown>;
}

/**
 * `filter` entries as the API's `filter=field:Operation:value` parameters. A key is a DTO field
 * (`Equal`, or `In` for a list) or `field:Operation` (`name:Contains`, `price:GreaterThan`);
 * `q` is the search box, `@deleted` the soft-deleted rows (`include` or `only`). Empty values are
 * no filter.
 */
export function listFilters(filter: Record<string, unknown> = {}): URLSearchParams {
  const query = new URLSearchParams();
  for (const [key, value] of flatten(filter)) {
    if (value === undefined || value === null || value === '') continue;
    if (key === DELETED_KEY) {
      query.set('deleted', String(value));
      continue;
    }
    if (key === 'q') {
      const term = String(value).trim();
      if (term.length >= 2) query.set('search', term);
      continue;
    }
    const [field, operation] = key.includes(':') ? key.split(':', 2) : [key, undefined];
    if (Array.isArray(value)) {
      if (value.length > 0)
        query.append('filter', `${field}:${operation ?? 'In'}:${value.join(',')}`);
    } else {
      query.append('filter', `${field}:${operation ?? 'Equal'}:${String(value)}`);
    }
  }
  return query;
}

/**
 * React-Admin keeps a filter input's dotted source (`customer.name:Contains`) as nested objects
 * (`{ customer: { 'name:Contains': 'Ana' } }`): the entries back as dotted keys.
 */
function flatten(filter: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(filter).flatMap(([key, value]): [string, unknown][] =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? flatten(value as Record<string, unknown>, `${prefix}${key}.`)
      : [[`${prefix}${key}`, value]],
  );
}

interface Page {
  items: AdminRecord[];
  totalItemCount: number | null;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  nextCursor?: string | null;
}

/**
 * A data provider for `<Admin dataProvider={...}>`.
 *
 * @example
 * const dataProvider = createDataProvider({ token: () => sessionStorage.getItem('token') });
 */
export function createDataProvider(options: DataProviderOptions = {}) {
  const apiUrl = (options.apiUrl ?? '/v1').replace(/\/$/, '');
  const keyHeader = options.idempotencyHeader ?? 'X-Idempotency-Key';
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  // The cursor of the page after each page read, by list query: page n+1 follows page n by cursor.
  const cursors = new Map<string, string>();

  const keyFor = (resource: string, operation: keyof KeyRequired): Record<string, string> =>
    options.requiresKey?.[resource]?.[operation] ? { [keyHeader]: crypto.randomUUID() } : {};

  async function call(
    path: string,
    init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const token = options.token?.();
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...init.headers,
    };
    // Never the browser's HTTP cache: rows read with the caller's token are not kept on disk, and
    // every page shows the row as it is now. (A revalidation would be safe: a row's ETag covers
    // the related rows and collections its answer nests.)
    const fresh = { cache: 'no-store' } as RequestInit;
    const res = await send(`${apiUrl}${path}`, { ...fresh, ...init, headers });
    if (!res.ok) throw await problemError(res);
    return res;
  }

  async function withEtag(res: Response): Promise<AdminRecord> {
    const data = (await res.json()) as AdminRecord;
    const etag = res.headers.get('etag');
    return etag ? { ...data, [ETAG_KEY]: etag } : data;
  }

  const path = (resource: string, id?: string | number, tail = '') =>
    `/${resource}${id === undefined ? '' : `/${encodeURIComponent(String(id))}`}${tail}`;

  async function getList<R = AdminRecord>(resource: string, params: ListParams) {
    const query = listFilters(params.filter);
    const sort = params.sort;
    // React-Admin's default sort is by id ascending; the API's own default (newest first) stays
    // unless a column was chosen.
    if (sort?.field && !(sort.field === 'id' && sort.order === 'ASC')) {
      query.set('orderBy', sort.field);
      if (sort.order === 'DESC') query.set('desc', 'true');
    }
    const { page = 1, perPage = 20 } = params.pagination ?? {};
    query.set('pageSize', String(perPage));
    const listKey = `${resource}?${query.toString()}`;
    const cursor = page > 1 ? cursors.get(`${listKey}#${page - 1}`) : undefined;
    if (cursor) query.set('cursor', cursor);
    else query.set('pageNumber', String(page));
    const res = await call(`${path(resource)}?${query.toString()}`, {
      headers: { prefer: 'count=exact' },
      ...(params.signal ? { signal: params.signal } : {}),
    });
    const body = (await res.json()) as Page;
    if (body.nextCursor) cursors.set(`${listKey}#${page}`, body.nextCursor);
    return {
      data: body.items as R[],
      ...(body.totalItemCount === null
        ? { pageInfo: { hasNextPage: body.hasNextPage, hasPreviousPage: body.hasPreviousPage } }
        : { total: body.totalItemCount }),
    };
  }

  return {
    getList,

    async getOne<R = AdminRecord>(
      resource: string,
      params: { id: string | number; signal?: AbortSignal },
    ) {
      const res = await call(
        path(resource, params.id),
        params.signal ? { signal: params.signal } : {},
      );
      return { data: (await withEtag(res)) as R };
    },

    async getMany<R = AdminRecord>(
      resource: string,
      params: { ids: (string | number)[]; signal?: AbortSignal },
    ) {
      if (params.ids.length === 0) return { data: [] as R[] };
      const { data } = await getList<R>(resource, {
        filter: { id: params.ids.map(String) },
        pagination: { page: 1, perPage: Math.min(params.ids.length, 100) },
        ...(params.signal ? { signal: params.signal } : {}),
      });
      return { data };
    },

    async getManyReference<R = AdminRecord>(
      resource: string,
      params: ListParams & { target: string; id: string | number },
    ) {
      return getList<R>(resource, {
        ...params,
        filter: { ...params.filter, [params.target]: String(params.id) },
      });
    },

    async create<R = AdminRecord>(resource: string, params: { data: object }) {
      const res = await call(path(resource), {
        method: 'POST',
        body: JSON.stringify(params.data),
        headers: keyFor(resource, 'create'),
      });
      return { data: (await withEtag(res)) as R };
    },

    async update<R = AdminRecord>(
      resource: string,
      params: {
        id: string | number;
        data: object;
        previousData?: object;
        meta?: { method?: 'PUT' | 'PATCH' };
      },
    ) {
      const { [ETAG_KEY]: _sent, ...data } = params.data as Record<string, unknown>;
      const etag = (params.previousData as Record<string, unknown> | undefined)?.[ETAG_KEY];
      const res = await call(path(resource, params.id), {
        method: params.meta?.method ?? 'PUT',
        body: JSON.stringify(data),
        headers: {
          ...(typeof etag === 'string' ? { 'if-match': etag } : {}),
          ...keyFor(resource, 'update'),
        },
      });
      return { data: (await withEtag(res)) as R };
    },

    async updateMany(): Promise<never> {
      throw new AdminHttpError('the API changes one row at a time', 405, {});
    },

    async delete<R = AdminRecord>(
      resource: string,
      params: { id: string | number; previousData?: object },
    ) {
      await call(path(resource, params.id), {
        method: 'DELETE',
        headers: keyFor(resource, 'delete'),
      });
      return { data: (params.previousData ?? { id: params.id }) as R };
    },

    async deleteMany(resource: string, params: { ids: (string | number)[] }) {
      for (const id of params.ids) {
        await call(path(resource, id), { method: 'DELETE', headers: keyFor(resource, 'delete') });
      }
      return { data: params.ids };
    },

    /** Calls an action route of a row; answers the row as the action left it. */
    async action(resource: string, params: ActionParams) {
      // No segment: the row's own update route (`/{id}`, never `/{id}/`), keyed as updates are. A
      // named segment is an action or an update method (`/{id}/discontinue`), which the button
      // does not tell apart: it gets a key when either requires one (an unguarded route ignores it).
      const own = params.segment === '';
      const key = own
        ? keyFor(resource, 'update')
        : { ...keyFor(resource, 'update'), ...keyFor(resource, 'action') };
      const res = await call(path(resource, params.id, own ? '' : `/${params.segment}`), {
        method: params.verb ?? 'POST',
        ...(params.data && Object.keys(params.data).length > 0
          ? { body: JSON.stringify(params.data) }
          : {}),
        headers: key,
      });
      return { data: res.status === 204 ? undefined : await withEtag(res) };
    },
  };
}

/** The provider `createDataProvider` makes, with its `action` method. */
export type SlicekitDataProvider = ReturnType<typeof createDataProvider>;
