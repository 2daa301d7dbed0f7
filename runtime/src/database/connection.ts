// Bounding what a pooled connection may wait for, and dropping a connection that timed out, so a
// silent database fails requests quickly and the pool recovers by itself once it answers again.

/** The database family a Knex configuration is for. */
export type ConnectionDialect = 'postgres' | 'mysql' | 'sqlite';

/** What `boundConnection` bounds. */
export interface ConnectionBounds {
  /**
   * MySQL/MariaDB: longest wait for the answer of one statement, given to mysql2 as each query's
   * `timeout` (mysql2 has no per-connection setting). PostgreSQL takes `query_timeout` and
   * `statement_timeout` in its connection settings instead. @default no limit
   */
  queryTimeoutMs?: number;
  /** SQLite: longest wait for a lock another connection holds (`PRAGMA busy_timeout`). @default 5000 */
  busyTimeoutMs?: number;
}

type Callback = (error: unknown, ...rest: unknown[]) => unknown;

interface QueryingConnection {
  query(...args: unknown[]): unknown;
}

interface MysqlConnection extends QueryingConnection {
  destroy(): void;
  stream?: { destroy?: () => void };
}

interface PostgresClient extends QueryingConnection {
  connection?: { stream?: { destroy?: () => void } };
}

interface SqliteDatabase {
  pragma(source: string): unknown;
}

/** Connections `boundConnection` closed after a timeout, which the pool must not hand out again. */
const dropped = new WeakSet<object>();

/**
 * A Knex `pool.validate` hook: false for a connection closed after a query timed out, so the pool
 * opens a fresh one rather than handing that one to the next query (node-postgres, for one, only
 * notices a closed socket when it next writes to it).
 */
export function connectionUsable(connection: unknown): boolean {
  return !dropped.has(connection as object);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

/**
 * Wraps `connection.query` so that `onError` sees the error of every query that ends with one,
 * and `withOptions` may rewrite the query's first argument.
 */
function watchQueries(
  connection: QueryingConnection,
  onError: (error: unknown) => void,
  withOptions: (sql: unknown) => unknown = (sql) => sql,
): void {
  const query = connection.query;
  connection.query = function boundedQuery(this: unknown, ...args: unknown[]) {
    args[0] = withOptions(args[0]);
    const last = args.length - 1;
    const callback = args[last];
    if (last > 0 && typeof callback === 'function') {
      args[last] = function settled(this: unknown, error: unknown, ...rest: unknown[]) {
        if (error) onError(error);
        return (callback as Callback).call(this, error, ...rest);
      };
    }
    return query.apply(this, args);
  };
}

/**
 * A Knex `pool.afterCreate` hook bounding each new connection:
 *
 * - MySQL/MariaDB: every query gets mysql2's `timeout` (unless it has one), answered with
 *   `PROTOCOL_SEQUENCE_TIMEOUT` when nothing comes back in time;
 * - PostgreSQL: node-postgres' `query_timeout` (set in the connection settings) answers `Query read
 *   timeout` the same way;
 * - on either, a connection whose query timed out is closed, since its answer may still arrive
 *   and would be read as the next query's: the pool discards it and opens a fresh one when the
 *   database answers again;
 * - SQLite: sets the busy timeout.
 *
 * @example
 * pool: { min: 0, max: 10, afterCreate: boundConnection('mysql', { queryTimeoutMs: 5000 }) }
 */
export function boundConnection(
  dialect: ConnectionDialect,
  bounds: ConnectionBounds = {},
): (connection: unknown, done: (error: Error | null, connection: unknown) => void) => void {
  return function afterCreate(connection, done) {
    try {
      if (dialect === 'sqlite') {
        const ms = Math.max(0, Math.floor(bounds.busyTimeoutMs ?? 5000));
        (connection as SqliteDatabase).pragma(`busy_timeout = ${ms}`);
      } else if (dialect === 'mysql') {
        const mysql = connection as MysqlConnection;
        const timeout = bounds.queryTimeoutMs;
        watchQueries(
          mysql,
          (error) => {
            if ((error as { code?: unknown }).code !== 'PROTOCOL_SEQUENCE_TIMEOUT') return;
            dropped.add(mysql);
            mysql.destroy();
            mysql.stream?.destroy?.();
          },
          (sql) => {
            if (timeout === undefined) return sql;
            if (typeof sql === 'string') return { sql, timeout };
            return isPlainObject(sql) && sql.timeout === undefined ? { ...sql, timeout } : sql;
          },
        );
      } else {
        const client = connection as PostgresClient;
        watchQueries(client, (error) => {
          if ((error as { message?: unknown }).message !== 'Query read timeout') return;
          dropped.add(client);
          client.connection?.stream?.destroy?.();
        });
      }
      done(null, connection);
    } catch (error) {
      done(error as Error, connection);
    }
  };
}
