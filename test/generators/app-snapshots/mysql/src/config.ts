// Settings read from the environment once, with the defaults this app was generated with. Each is
// parsed strictly: a value the app does not understand stops it at start with a ConfigError
// naming the variable, the value and what it accepts, never a silent default (docs in README.md).
import { authOptionsFromEnv, type AuthOptions } from '@slicekit/runtime/auth';
import { envChoice, envInteger } from '@slicekit/runtime/config';
import type { DatabaseTimeouts } from '@slicekit/runtime/database';

const env = process.env;

/** The app's name: the title of its OpenAPI document. */
export const appName = 'shop';

/** Where the data lives: a SQLite file path, or a `postgres://` or `mysql://` URL. */
export const databaseUrl = env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/shop';

/** TCP port the server listens on. */
export const port = envInteger(env, 'PORT', 3000, { min: 0, max: 65535 });

/** TCP port of the Prometheus `/metrics` listener, apart from the API; 0 turns metrics off. */
export const metricsPort = envInteger(env, 'METRICS_PORT', 9464, { min: 0, max: 65535 });

/** pino level. */
export const logLevel = envChoice(
  env,
  'LOG_LEVEL',
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  'info',
);

// Waits in whole milliseconds, up to an hour; `orNone` also takes 0, for "none".
const wait = { min: 1, max: 3_600_000 };
const orNone = { min: 0, max: 3_600_000 };

/**
 * How long a database call may wait (src/knexfile.ts). A request that runs out of time answers
 * 503 with `Retry-After`; the pool drops the connection and opens a fresh one once the database
 * answers again.
 */
export const databaseTimeouts: DatabaseTimeouts = {
  /** DATABASE_ACQUIRE_TIMEOUT_MS: longest wait for a connection from the pool. */
  acquireTimeoutMs: envInteger(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', 5000, wait),
  /** DATABASE_CONNECT_TIMEOUT_MS: longest wait to open a connection (PostgreSQL, MySQL). */
  connectTimeoutMs: envInteger(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, wait),
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS: longest wait for one statement's answer (PostgreSQL, MySQL);
   * migrations run without it.
   */
  statementTimeoutMs: envInteger(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, wait),
  /** DATABASE_KEEPALIVE_MS: idle time before TCP keepalive probes start; 0 turns them off. */
  keepAliveMs: envInteger(env, 'DATABASE_KEEPALIVE_MS', 10000, orNone),
  /** DATABASE_BUSY_TIMEOUT_MS: SQLite's longest wait for a file another connection has locked. */
  busyTimeoutMs: envInteger(env, 'DATABASE_BUSY_TIMEOUT_MS', 5000, orNone),
};

/**
 * Bearer-JWT verification (src/auth.ts), from AUTH_JWT_SECRET or AUTH_JWKS_URL, AUTH_ISSUER,
 * AUTH_AUDIENCE, AUTH_USER_CLAIM and AUTH_REQUIRED (true/false, 1/0, yes/no, on/off). With
 * neither secret nor JWKS URL every caller is anonymous.
 */
export const authSettings: AuthOptions = authOptionsFromEnv(env);
