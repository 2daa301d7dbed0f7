// Knex settings for the database a URL names, so a generated app's src/knexfile.ts stays short
// and a fix to a driver setting or a timeout reaches every app with the next runtime.
import type { Knex } from 'knex';
import { dialectFor, dialectForUrl } from '../sql/index.js';
import type { ConnectionDialect } from './connection.js';
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
export const dialectOf = (url: string): ConnectionDialect => dialectForUrl(url).name;

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
    ...dialectForUrl(url).connectionSettings(url, limits, pool),
    // No free connection in the pool within this time: KnexTimeoutError.
    acquireConnectionTimeout: limits.acquireTimeoutMs,
    ...(options.migrations ? { migrations: options.migrations } : {}),
    ...(options.seeds ? { seeds: options.seeds } : {}),
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
  return dialectFor(knex).unboundedStatements(knex.client.config as Knex.Config);
}
