// A React-Admin data provider for slicekit's `/v1` API: the list contract (pages by number, or by
// cursor once the page before was read, `orderBy`/`desc`, `search`, `filter=field:Operation:value`,
// the total count), `If-Match` from the ETag a row was read with, an idempotency key on the
// operations whose routes require one, and problem+json answers turned into errors React-Admin
// shows (field errors beside the fields). It imports nothing from React-Admin: the shapes below
// are the parts of its `DataProvider` contract this provider fills, so the runtime stays light.

import { AdminHttpError, problemError } from './errors.js';
import { listFilters } from './list-filters.js';

export { AdminHttpError, fieldErrors, STALE_ROW_MESSAGE } from './errors.js';
export { DELETED_KEY, listFilters } from './list-filters.js';

/** A row as React-Admin holds it: a DTO, with the ETag it was read with under `ETAG_KEY`. */
export type AdminRecord = { id: string | number } & Record<string, unknown>;

/** Where a row read by `getOne` (or written by `update`) keeps its entity tag. */
export const ETAG_KEY = '@etag';

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
  /** The row as the page read it: its ETag (`ETAG_KEY`) goes as `If-Match`, as an edit's does. */
  previousData?: object;
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
  // By row, the tag this provider's last change answered, and the tags its run of changes replaced
  // (since the last change from a tag read afresh): a page not yet refreshed after its own change
  // (a second button clicked at once) is not refused as stale. Anyone else's change since still
  // is: the row's tag is then another.
  const own = new Map<string, { latest: string; replaced: Set<string> }>();
  /** `If-Match` with the tag `row` was read with, or the one this provider's changes gave it. */
  const ifMatch = (row: string, read: object | undefined): Record<string, string> => {
    const etag = (read as Record<string, unknown> | undefined)?.[ETAG_KEY];
    if (typeof etag !== 'string') return {};
    const mine = own.get(row);
    return { 'if-match': mine?.replaced.has(etag) ? mine.latest : etag };
  };
  /** Notes the tag of `row` after a change sent with `sent` (its `If-Match`), answered by `res`. */
  const changed = (row: string, sent: Record<string, string>, res: Response) => {
    const before = sent['if-match'];
    const after = res.headers.get('etag');
    if (!before || !after) return;
    const mine = own.get(row);
    const replaced = mine?.latest === before ? mine.replaced : new Set<string>();
    own.set(row, { latest: after, replaced: replaced.add(before) });
  };

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
      const row = path(resource, params.id);
      const precondition = ifMatch(row, params.previousData);
      const res = await call(row, {
        method: params.meta?.method ?? 'PUT',
        body: JSON.stringify(data),
        headers: { ...precondition, ...keyFor(resource, 'update') },
      });
      changed(row, precondition, res);
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

    /**
     * Calls an action route of a row, with `If-Match` from the row read (`previousData`): 412, with
     * `STALE_ROW_MESSAGE`, when it changed since. Answers the row as the action left it.
     */
    async action(resource: string, params: ActionParams) {
      // No segment: the row's own update route (`/{id}`, never `/{id}/`), keyed as updates are. A
      // named segment is an action or an update method (`/{id}/discontinue`), which the button
      // does not tell apart: it gets a key when either requires one (an unguarded route ignores it).
      const ownRoute = params.segment === '';
      const key = ownRoute
        ? keyFor(resource, 'update')
        : { ...keyFor(resource, 'update'), ...keyFor(resource, 'action') };
      const row = path(resource, params.id);
      const precondition = ifMatch(row, params.previousData);
      const res = await call(`${row}${ownRoute ? '' : `/${params.segment}`}`, {
        method: params.verb ?? 'POST',
        ...(params.data && Object.keys(params.data).length > 0
          ? { body: JSON.stringify(params.data) }
          : {}),
        headers: { ...precondition, ...key },
      });
      changed(row, precondition, res);
      return { data: res.status === 204 ? undefined : await withEtag(res) };
    },
  };
}

/** The provider `createDataProvider` makes, with its `action` method. */
export type SlicekitDataProvider = ReturnType<typeof createDataProvider>;
