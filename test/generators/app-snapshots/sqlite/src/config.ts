// Settings read from the environment once, with the defaults this app was generated with. Each is
// parsed strictly: a value the app does not understand stops it at start with a ConfigError
// naming the variable, the value and what it accepts, never a silent default (docs in README.md).
import { authOptionsFromEnv, type AuthOptions } from '@slicekit/runtime/auth';
import {
  ConfigError,
  envBoolean,
  envChoice,
  envInteger,
  envOrigins,
} from '@slicekit/runtime/config';
import type { DatabaseTimeouts } from '@slicekit/runtime/database';
import { eventsBrokerFromEnv, type BrokerSettings } from '@slicekit/runtime/events';

const env = process.env;

/** The app's name: the title of its OpenAPI document. */
export const appName = 'shop';

/** Where the data lives: a SQLite file path, or a `postgres://` or `mysql://` URL. */
export const databaseUrl = env.DATABASE_URL || 'data/shop.sqlite';

/** TCP port the server listens on. */
export const port = envInteger(env, 'PORT', 3000, { min: 0, max: 65535 });

/** TCP port of the Prometheus `/metrics` listener, apart from the API; 0 turns metrics off. */
export const metricsPort = envInteger(env, 'METRICS_PORT', 9464, { min: 0, max: 65535 });

/**
 * Whether start-up applies pending migrations (MIGRATE_ON_START, default true). With `false` a
 * process never changes the schema: on a database not migrated yet it serves and reports itself
 * unready at /health/ready until `npm run migrate` (or one process started with `true`) has run.
 */
export const migrateOnStart = envBoolean(env, 'MIGRATE_ON_START', true);

/**
 * SHUTDOWN_GRACE_MS: after SIGTERM or SIGINT, the longest wait for the requests in flight and the
 * clean-up before the process exits anyway (exit code 0, connections still open closed).
 */
export const shutdownGraceMs = envInteger(env, 'SHUTDOWN_GRACE_MS', 10000, {
  min: 0,
  max: 3_600_000,
});

/**
 * CORS_ORIGINS: the web origins (`https://app.example.com`, comma-separated, exact) whose browser
 * pages may call this API; none by default, and then no CORS header is ever sent.
 */
export const corsOrigins = envOrigins(env, 'CORS_ORIGINS');

/**
 * ADMIN_ENABLED: whether the app serves its admin UI at /admin (default true), the pages
 * `npm run build` writes to dist/admin. `false` leaves /admin out; the API is the same either way.
 */
export const adminEnabled = envBoolean(env, 'ADMIN_ENABLED', true);

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
 * IDEMPOTENCY_STORE_URL: where the idempotency guard keeps its keys (src/idempotency.ts). A
 * `redis://` or `rediss://` URL keeps them in Redis; unset, they stay in this app's database on
 * PostgreSQL and MySQL, in process memory on SQLite.
 */
export const idempotencyStoreUrl = redisUrl('IDEMPOTENCY_STORE_URL');

function redisUrl(name: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  if (/^rediss?:\/\/./i.test(value) && URL.canParse(value)) return value;
  // The refused value is shown without the password it may carry.
  const shown = value.replace(/\/\/[^/@]*@/, '//***@');
  throw new ConfigError(name, shown, 'a redis:// or rediss:// URL, or nothing');
}

/**
 * Bearer-JWT verification (src/auth.ts), from AUTH_JWT_SECRET or AUTH_JWKS_URL, AUTH_ISSUER,
 * AUTH_AUDIENCE, AUTH_USER_CLAIM, AUTH_ROLES_CLAIM, AUTH_TENANT_CLAIM and AUTH_REQUIRED (true/false, 1/0, yes/no,
 * on/off). With
 * neither secret nor JWKS URL every caller is anonymous.
 */
export const authSettings: AuthOptions = authOptionsFromEnv(env);

/**
 * Where events are relayed besides this process's subscribers (src/events.ts): EVENTS_BROKER_URL
 * (`nats://...` for NATS JetStream, `amqp://...` or `amqps://...` for RabbitMQ; unset, events stay
 * in-process), EVENTS_SUBJECT_PREFIX (`events`) and EVENTS_STREAM (`EVENTS`) for NATS,
 * EVENTS_EXCHANGE (`events`) for RabbitMQ.
 */
export const eventsBroker: BrokerSettings | undefined = eventsBrokerFromEnv(env);
