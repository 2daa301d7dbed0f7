// Knex settings for the database a URL names, so a generated app's src/knexfile.ts stays short
// and a fix to a driver setting or a timeout reaches every app with the next runtime.
import type { Knex } from 'knex';
import { sqlFamily } from '../sql/dialect.js';
import { boundConnection, connectionUsable, type ConnectionDialect } from './connection.js';
import { databaseTimeoutDefaults, type DatabaseTimeouts } from './timeouts.js';

/** What `knexConfig` takes beside the URL. */
export interface KnexConfigOptions {
  /** How long each database call may wait; missing ones take `databaseTimeoutDefaults`. */
  timeouts?: Partial<DatabaseTimeouts>;
  /** The app's migrations (Knex `migrations`). */
  migrations?: Knex.MigratorConfig;
  /** The app's seeds (Knex `seeds`). */
  seeds?: Knex.SeederConfig;
  /** Least and most connections of a PostgreSQL or MySQL pool (SQLite has one). @default 0, 10 */
  pool?: { min?: number; max?: number };
}

/** The database behind a `DATABASE_URL`; anything that is not a server URL is a SQLite file. */
export function dialectOf(url: string): ConnectionDialect {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^mysql:\/\//i.test(url)) return 'mysql';
  return 'sqlite';
}

type AfterCreate = ReturnType<typeof boundConnection>;
type Settings = Pick<Knex.Config, 'client' | 'connection' | 'pool' | 'useNullAsDefault'>;

const settingsOf: Record<
  ConnectionDialect,
  (url: string, limits: DatabaseTimeouts, pool: { min: number; max: number }) => Settings
> = {
  postgres: (url, limits, pool) => ({
    client: 'pg',
    connection: {
      connectionString: url,
      connectionTimeoutMillis: limits.connectTimeoutMs,
      // The server cancels a statement that runs longer (SQLSTATE 57014)...
      statement_timeout: limits.statementTimeoutMs,
      // ...and the client stops waiting for an answer that never comes (a silent network) a
      // second later, so a slow statement is cancelled by the server first.
      query_timeout: limits.statementTimeoutMs + 1000,
      keepAlive: limits.keepAliveMs > 0,
      keepAliveInitialDelayMillis: limits.keepAliveMs,
    } satisfies Knex.PgConnectionConfig,
    // Drops a connection whose query timed out: its late answer would confuse the next query.
    pool: { ...pool, afterCreate: boundConnection('postgres'), validate: connectionUsable },
  }),
  mysql: (url, limits, pool) => ({
    client: 'mysql2',
    connection: Object.assign(
      {
        uri: url,
        connectTimeout: limits.connectTimeoutMs,
        enableKeepAlive: limits.keepAliveMs > 0,
        keepAliveInitialDelay: limits.keepAliveMs,
        supportBigNumbers: true,
        charset: 'utf8mb4',
        // Date-times are UTC on the wire, whatever the time zone of the server or this machine.
        timezone: 'Z',
        // multipleStatements stays off: a query is one statement, so SQL injected into a query
        // cannot stack another one after it.
      } satisfies Knex.MySql2ConnectionConfig,
      // DATE columns as their 'YYYY-MM-DD' text: a Date at midnight would be another day wherever
      // the process runs west or east of that midnight. mysql2 takes a list of types here; Knex's
      // typings know only the boolean form, hence the separate object.
      { dateStrings: ['DATE'] },
    ),
    // mysql2 has no per-connection statement timeout: each query gets one here, and a connection
    // whose query timed out is dropped.
    pool: {
      ...pool,
      afterCreate: boundConnection('mysql', { queryTimeoutMs: limits.statementTimeoutMs }),
      validate: connectionUsable,
    },
  }),
  sqlite: (url, limits) => ({
    client: 'better-sqlite3',
    connection: { filename: url },
    useNullAsDefault: true,
    // A write waits this long for a file another process has locked, then fails SQLITE_BUSY.
    // better-sqlite3 waits on the event loop's thread: keep it short.
    pool: {
      afterCreate: enforceForeignKeys(
        boundConnection('sqlite', { busyTimeoutMs: limits.busyTimeoutMs }),
      ),
    },
  }),
};

/**
 * The Knex configuration for `url` (a `postgres://` or `mysql://` URL, or a SQLite file path),
 * every wait bounded by `options.timeouts`, so a database that stops answering fails requests
 * with 503 instead of hanging them (docs/reliability.md). Spread it to override a setting:
 * `{ ...knexConfig(url), debug: true }`.
 *
 * @example
 * knexFactory(knexConfig(process.env.DATABASE_URL, { timeouts, migrations, seeds }))
 */
export function knexConfig(url: string, options: KnexConfigOptions = {}): Knex.Config {
  const limits = { ...databaseTimeoutDefaults, ...options.timeouts };
  const pool = { min: options.pool?.min ?? 0, max: options.pool?.max ?? 10 };
  return {
    ...settingsOf[dialectOf(url)](url, limits, pool),
    // No free connection in the pool within this time: KnexTimeoutError.
    acquireConnectionTimeout: limits.acquireTimeoutMs,
    ...(options.migrations ? { migrations: options.migrations } : {}),
    ...(options.seeds ? { seeds: options.seeds } : {}),
  };
}

/**
 * SQLite checks foreign keys (a reference's constraint and its onDelete) only on a connection that
 * asks for them: each new connection does, before `next`.
 */
function enforceForeignKeys(next: AfterCreate): AfterCreate {
  return function foreignKeysOn(connection, done) {
    (connection as { pragma(source: string): unknown }).pragma('foreign_keys = ON');
    next(connection, done);
  };
}

/**
 * `knex`'s configuration without the statement timeout, on a pool of one connection, for
 * migrations, which may take longer than a request may (an index on a big table). SQLite has no
 * statement timeout: null, keep `knex`.
 *
 * @example
 * const unbounded = unboundedStatements(knex);
 * const migrator = unbounded ? knexFactory(unbounded) : knex;
 */
export function unboundedStatements(knex: Knex): Knex.Config | null {
  const config: Knex.Config = knex.client.config;
  const pool = { ...config.pool, min: 0, max: 1 };
  switch (sqlFamily(knex)) {
    case 'postgres': {
      const given = config.connection as string | Knex.PgConnectionConfig;
      const connection = typeof given === 'string' ? { connectionString: given } : { ...given };
      delete connection.statement_timeout;
      delete connection.query_timeout;
      return { ...config, connection, pool };
    }
    case 'mysql':
      // The pool's afterCreate gives each query the statement timeout: one without it.
      return { ...config, pool: { ...pool, afterCreate: boundConnection('mysql') } };
    case 'sqlite':
      return null;
  }
}
