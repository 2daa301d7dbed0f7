// Real-service test harness: each suite gets its own database, schema or key prefix on the local
// PostgreSQL, MySQL/MariaDB and Redis servers, and skips loudly (or fails under
// REQUIRE_SERVICES=1) when a server does not answer.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createClient } from 'redis';
import { listQueryAfterCreate } from '@slicekit/runtime/list-query';

export const serviceUrls = {
  postgres: process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  mysql: process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
} as const;

export type ServiceName = keyof typeof serviceUrls;
export type Dialect = 'sqlite' | 'postgres' | 'mysql';

const labels: Record<ServiceName, string> = {
  postgres: 'PostgreSQL',
  mysql: 'MySQL/MariaDB',
  redis: 'Redis',
};

const requireServices = process.env.REQUIRE_SERVICES === '1';
const PROBE_TIMEOUT_MS = 3000;

/** A short random name, safe as a database name or a key prefix. */
export function uniqueName(prefix = 'sk'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** The URL with its database (path) replaced. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

const probes: Record<ServiceName, (url: string) => Promise<void>> = {
  async postgres(url) {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    });
    try {
      await client.connect();
      await client.query('select 1');
    } finally {
      await client.end().catch(() => undefined);
    }
  },
  async mysql(url) {
    const connection = await mysql.createConnection({ uri: url, connectTimeout: PROBE_TIMEOUT_MS });
    try {
      await connection.query('select 1');
    } finally {
      await connection.end().catch(() => undefined);
    }
  },
  async redis(url) {
    const client = createClient({
      url,
      socket: { connectTimeout: PROBE_TIMEOUT_MS, reconnectStrategy: false },
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
    } finally {
      if (client.isOpen) await client.quit().catch(() => undefined);
    }
  },
};

const probeResults = new Map<ServiceName, Promise<Error | undefined>>();

/** Probes a server once per run; resolves to the error when it does not answer. */
export function probe(service: ServiceName): Promise<Error | undefined> {
  let result = probeResults.get(service);
  if (!result) {
    result = probes[service](serviceUrls[service]).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    probeResults.set(service, result);
  }
  return result;
}

const warned = new Set<ServiceName>();

/**
 * Skips the current suite (or fails the run under REQUIRE_SERVICES=1) when `service` does not
 * answer. Call from a `before` hook.
 */
export async function requireService(context: Mocha.Context, service: ServiceName): Promise<void> {
  const error = await probe(service);
  if (!error) return;
  const url = serviceUrls[service];
  const reason = (error as NodeJS.ErrnoException).code ?? error.message;
  const line = `${labels[service]} at ${url} did not answer (${reason})`;
  if (requireServices) {
    throw new Error(`${line}; REQUIRE_SERVICES=1 makes this a failure`);
  }
  if (!warned.has(service)) {
    warned.add(service);
    console.error(
      `\n  !!! SKIPPING ${labels[service]} SUITES: ${line}. ` +
        `Start the server or set the URL; REQUIRE_SERVICES=1 fails instead.\n`,
    );
  }
  context.skip();
}

export interface DatabaseHandle {
  readonly dialect: Dialect;
  /** A Knex instance on this suite's own, empty database. */
  readonly knex: Knex;
  /** Connection string (or SQLite file path) of this suite's database, for child processes. */
  readonly url: string;
}

interface Lifecycle<T> {
  setUp(): Promise<T>;
  tearDown(value: T): Promise<void>;
}

function knexFor(dialect: Dialect, url: string): Knex {
  switch (dialect) {
    case 'sqlite':
      return knexFactory({
        client: 'better-sqlite3',
        connection: { filename: url },
        useNullAsDefault: true,
        // As an app's knexConfig: the list query's and case-ignoring unique indexes' function.
        pool: { afterCreate: listQueryAfterCreate() },
      });
    case 'postgres':
      return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 10 } });
    case 'mysql':
      return knexFactory({
        client: 'mysql2',
        connection: {
          uri: url,
          supportBigNumbers: true,
          charset: 'utf8mb4',
          // As a generated app's knexfile: DATE columns as their 'YYYY-MM-DD' text.
          dateStrings: ['DATE'] as unknown as boolean,
        } as Knex.MySql2ConnectionConfig,
        pool: { min: 0, max: 10 },
      });
  }
}

const databases: Record<Dialect, Lifecycle<DatabaseHandle>> = {
  sqlite: {
    async setUp() {
      const dir = mkdtempSync(join(tmpdir(), 'slicekit-sqlite-'));
      const url = join(dir, 'test.sqlite');
      return { dialect: 'sqlite', knex: knexFor('sqlite', url), url };
    },
    async tearDown(handle) {
      await handle.knex.destroy();
      rmSync(join(handle.url, '..'), { recursive: true, force: true });
    },
  },
  postgres: {
    async setUp() {
      const name = uniqueName();
      const admin = new pg.Client({ connectionString: serviceUrls.postgres });
      await admin.connect();
      try {
        await admin.query(`create database "${name}"`);
      } finally {
        await admin.end();
      }
      const url = withDatabase(serviceUrls.postgres, name);
      return { dialect: 'postgres', knex: knexFor('postgres', url), url };
    },
    async tearDown(handle) {
      await handle.knex.destroy();
      const name = new URL(handle.url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: serviceUrls.postgres });
      await admin.connect();
      try {
        await admin.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await admin.end();
      }
    },
  },
  mysql: {
    async setUp() {
      const name = uniqueName();
      const admin = await mysql.createConnection({ uri: serviceUrls.mysql });
      try {
        await admin.query(
          `create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`,
        );
      } finally {
        await admin.end();
      }
      const url = withDatabase(serviceUrls.mysql, name);
      return { dialect: 'mysql', knex: knexFor('mysql', url), url };
    },
    async tearDown(handle) {
      await handle.knex.destroy();
      const name = new URL(handle.url).pathname.slice(1);
      const admin = await mysql.createConnection({ uri: serviceUrls.mysql });
      try {
        await admin.query(`drop database if exists \`${name}\``);
      } finally {
        await admin.end();
      }
    },
  },
};

/**
 * Registers before/after hooks in the enclosing `describe` that give the suite its own empty
 * database. Read the handle's members inside tests or hooks, not at describe time.
 *
 * @example
 * describe('orders on PostgreSQL', () => {
 *   const db = useDatabase('postgres');
 *   it('stores a row', async () => { await db.knex('orders').insert({ id: 1 }); });
 * });
 */
export function useDatabase(dialect: Dialect): DatabaseHandle {
  let handle: DatabaseHandle | undefined;
  before(async function () {
    if (dialect !== 'sqlite') await requireService(this, dialect);
    handle = await databases[dialect].setUp();
  });
  after(async () => {
    if (handle) await databases[dialect].tearDown(handle);
    handle = undefined;
  });
  const current = (): DatabaseHandle => {
    if (!handle)
      throw new Error(`the ${dialect} database is not set up yet: use it inside a test or hook`);
    return handle;
  };
  return {
    dialect,
    get knex() {
      return current().knex;
    },
    get url() {
      return current().url;
    },
  };
}

export const allDialects: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];

/** Declares the same suite once per database: `describe('<title> on <dialect>')`. */
export function describeEachDatabase(title: string, body: (db: DatabaseHandle) => void): void {
  for (const dialect of allDialects) {
    describe(`${title} on ${dialect}`, () => body(useDatabase(dialect)));
  }
}

export type RedisClient = ReturnType<typeof createClient>;

export interface RedisHandle {
  readonly client: RedisClient;
  readonly url: string;
  /** A key prefix unique to this suite; every key the suite writes should start with it. */
  readonly prefix: string;
}

/** Registers hooks giving the suite a connected Redis client and its own key prefix. */
export function useRedis(): RedisHandle {
  let client: RedisClient | undefined;
  const prefix = `${uniqueName()}:`;
  before(async function () {
    await requireService(this, 'redis');
    client = createClient({ url: serviceUrls.redis });
    client.on('error', () => undefined);
    await client.connect();
  });
  after(async () => {
    if (!client) return;
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      const batch = ([] as string[]).concat(keys);
      if (batch.length > 0) await client.del(batch);
    }
    await client.quit();
    client = undefined;
  });
  return {
    get client() {
      if (!client)
        throw new Error('the Redis client is not connected yet: use it inside a test or hook');
      return client;
    },
    url: serviceUrls.redis,
    prefix,
  };
}
