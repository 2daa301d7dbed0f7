// Knex settings for the database a URL names: a SQLite file path, or a postgres:// or mysql:// URL.
// Every database call is bounded in time (src/config.ts reads the limits from DATABASE_*_MS), so
// a database that stops answering fails requests with 503 instead of hanging them.
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import {
  boundConnection,
  databaseTimeoutDefaults,
  type DatabaseTimeouts,
} from '@slicekit/runtime/database';
import { DirectoryMigrationSource } from './migration-source.js';

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

/** The database behind a `DATABASE_URL`; anything that is not a server URL is a SQLite file. */
export function dialectOf(url: string): Dialect {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^mysql:\/\//i.test(url)) return 'mysql';
  return 'sqlite';
}

// Migrations and seeds run as TypeScript under tsx (`npm run dev`, `npm test`) and as JavaScript
// from the compiled build (`npm start`); the extension of this very file tells which.
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

export const migrations: Knex.MigratorConfig = {
  migrationSource: new DirectoryMigrationSource(
    fileURLToPath(new URL('../migrations/', import.meta.url)),
    extension,
  ),
};

export const seeds: Knex.SeederConfig = {
  directory: fileURLToPath(new URL('../seeds/', import.meta.url)),
  loadExtensions: [extension],
};

/**
 * The Knex configuration for `url`, with each wait bounded by `limits` (the app passes the
 * settings of src/config.ts).
 */
export function knexConfig(
  url: string,
  limits: DatabaseTimeouts = databaseTimeoutDefaults,
): Knex.Config {
  // No free connection in the pool within this time: KnexTimeoutError.
  const acquireConnectionTimeout = limits.acquireTimeoutMs;
  switch (dialectOf(url)) {
    case 'postgres':
      return {
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
        } as Knex.PgConnectionConfig,
        acquireConnectionTimeout,
        // Drops a connection whose query timed out: its late answer would confuse the next query.
        pool: { min: 0, max: 10, afterCreate: boundConnection('postgres') },
        migrations,
        seeds,
      };
    case 'mysql':
      return {
        client: 'mysql2',
        connection: {
          uri: url,
          connectTimeout: limits.connectTimeoutMs,
          enableKeepAlive: limits.keepAliveMs > 0,
          keepAliveInitialDelay: limits.keepAliveMs,
          supportBigNumbers: true,
          charset: 'utf8mb4',
          // Date-times are UTC on the wire, whatever the time zone of the server or this machine.
          timezone: 'Z',
          // DATE columns as their 'YYYY-MM-DD' text: a Date at midnight would be another day
          // wherever the process runs west or east of that midnight. (mysql2 takes a list of
          // types; Knex's typings know only the boolean form.)
          dateStrings: ['DATE'] as unknown as boolean,
          // The idempotency guard reserves a key with an INSERT and a SELECT sent in one packet:
          // one round trip instead of two. Every value still travels as a bound parameter.
          multipleStatements: true,
        } as Knex.MySql2ConnectionConfig,
        acquireConnectionTimeout,
        // mysql2 has no per-connection statement timeout: each query gets one here, and a
        // connection whose query timed out is dropped.
        pool: {
          min: 0,
          max: 10,
          afterCreate: boundConnection('mysql', { queryTimeoutMs: limits.statementTimeoutMs }),
        },
        migrations,
        seeds,
      };
    case 'sqlite':
      return {
        client: 'better-sqlite3',
        connection: { filename: url },
        useNullAsDefault: true,
        acquireConnectionTimeout,
        // A write waits this long for a file another process has locked, then fails SQLITE_BUSY.
        // better-sqlite3 waits on the event loop's thread: keep it short.
        pool: {
          afterCreate: enforceForeignKeys(
            boundConnection('sqlite', { busyTimeoutMs: limits.busyTimeoutMs }),
          ),
        },
        migrations,
        seeds,
      };
  }
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

type AfterCreate = ReturnType<typeof boundConnection>;

/**
 * `knex`'s configuration without the statement timeout, for migrations, which may take longer
 * than a request may (an index on a big table). SQLite has no statement timeout: null, keep `knex`.
 */
export function unboundedStatements(knex: Knex): Knex.Config | null {
  const config = knex.client.config as Knex.Config;
  if (config.client === 'pg') {
    const connection = { ...(config.connection as Knex.PgConnectionConfig) };
    delete connection.statement_timeout;
    delete connection.query_timeout;
    return { ...config, connection, pool: { ...config.pool, min: 0, max: 1 } };
  }
  if (config.client === 'mysql2') {
    return { ...config, pool: { min: 0, max: 1, afterCreate: boundConnection('mysql') } };
  }
  return null;
}
