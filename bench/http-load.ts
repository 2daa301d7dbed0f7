// Pieces of bench/http.ts: the routes loaded, as each app spells them, and one load of a route
// with the requests/s and the CPU per request of the app process and of the database server.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { cpuOf, databaseCpu, type Db, type Server } from './http-apps.js';

export type AppName = 'slicekit' | 'floor' | 'nest';

/** One app under load: its server, its database, and the product ids of that database. */
export interface App {
  readonly name: AppName;
  readonly db: Db;
  readonly database: string;
  readonly server: Server;
  /** Rows the reads and updates pick from (the newest thousand). */
  readonly hot: string[];
  /** Rows left to delete, oldest first; each delete takes one. */
  readonly doomed: string[];
}

interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
interface LoadResult {
  requests: { total: number };
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  requests: { setupRequest: (request: LoadRequest) => LoadRequest }[];
}) => Promise<LoadResult>;

// A new object per request: autocannon writes its content-length into the headers it is given.
const json = () => ({ 'content-type': 'application/json' });
const pick = (ids: string[]) => ids[Math.floor(Math.random() * ids.length)]!;
// Two decimals written as such: `1 + 0.07` would send 1.0700000000000001, which the generated
// app refuses (400) as not a multiple of 0.01.
const price = () => `{"price":${(1 + Math.random() * 499).toFixed(2)}}`;

export interface Route {
  readonly name: string;
  readonly label: string;
  request(app: App): LoadRequest;
}

export const routes: Route[] = [
  {
    name: 'get',
    label: 'GET by id',
    request: (app) => ({ method: 'GET', path: `/v1/products/${pick(app.hot)}` }),
  },
  {
    name: 'list',
    label: 'list (filter, order, count)',
    request: (app) => ({
      method: 'GET',
      path:
        app.name === 'slicekit'
          ? '/v1/products?filter=price:GreaterThan:250&orderBy=price&desc=true'
          : '/v1/products?minPrice=250',
    }),
  },
  {
    name: 'create',
    label: 'POST create',
    request: () => ({
      method: 'POST',
      path: '/v1/products',
      headers: json(),
      body: JSON.stringify({ name: 'Benchmark product', price: 9.99 }),
    }),
  },
  {
    name: 'update',
    label: 'PUT ChangePrice',
    request: (app) => ({
      method: 'PUT',
      path: `/v1/products/${pick(app.hot)}`,
      headers: json(),
      body: price(),
    }),
  },
  {
    name: 'action',
    label: 'POST Approve (action)',
    request: (app) => ({
      method: 'POST',
      path: `/v1/products/${pick(app.hot)}/approval`,
      headers: json(),
      body: JSON.stringify({ byUser: 'bench' }),
    }),
  },
  {
    name: 'delete',
    label: 'DELETE',
    request: (app) => ({ method: 'DELETE', path: `/v1/products/${app.doomed.shift()}` }),
  },
];

/** The create of the app whose create requires a key: a new key on every request. */
export const idempotentCreate: Route = {
  name: 'create_idempotent',
  label: 'POST create, new X-Idempotency-Key',
  request: (app) => {
    const plain = routes.find((route) => route.name === 'create')!.request(app);
    return { ...plain, headers: { ...json(), 'x-idempotency-key': randomUUID() } };
  },
};

export interface Measured {
  rps: number;
  /** App process CPU µs per request. */
  appCpu: number;
  /** Database server CPU µs per request. */
  dbCpu: number;
  failed: number;
  /** Answers other than 2xx, by status. */
  statuses: string;
}

/** `seconds` of `route` on `app` with `connections` connections. */
export async function load(
  app: App,
  route: Route,
  seconds: number,
  connections: number,
): Promise<Measured> {
  const pid = app.server.process.pid;
  const appBefore = cpuOf(pid);
  const dbBefore = databaseCpu(app.db, app.database);
  const result = await autocannon({
    url: app.server.url,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (request) => ({ ...request, ...route.request(app) }) }],
  });
  const total = Math.max(1, result.requests.total);
  return {
    rps: result.requests.total / result.duration,
    appCpu: (cpuOf(pid) - appBefore) / total,
    dbCpu: (databaseCpu(app.db, app.database) - dbBefore) / total,
    failed: result.non2xx + result.errors + result.timeouts,
    statuses: Object.entries(result.statusCodeStats)
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, { count }]) => `${count} × ${status}`)
      .join(', '),
  };
}
