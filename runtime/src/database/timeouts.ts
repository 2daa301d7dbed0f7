// How long a generated app's database calls may wait, with the defaults in one place. They match
// the idempotency stores' own bounds (operationTimeoutMs and connectTimeoutMs, 5000 ms).

/** How long database calls may wait, in milliseconds (a generated app reads DATABASE_*_MS). */
export interface DatabaseTimeouts {
  /** Longest wait for a free pooled connection (Knex `acquireConnectionTimeout`). @default 5000 */
  acquireTimeoutMs: number;
  /** Longest wait to open a connection, PostgreSQL and MySQL. @default 5000 */
  connectTimeoutMs: number;
  /** Longest wait for one statement's answer, PostgreSQL and MySQL. @default 5000 */
  statementTimeoutMs: number;
  /** Idle time before TCP keepalive probes start; 0 turns them off. @default 10000 */
  keepAliveMs: number;
  /** SQLite's longest wait for a file another connection has locked. @default 5000 */
  busyTimeoutMs: number;
}

export const databaseTimeoutDefaults: Readonly<DatabaseTimeouts> = {
  acquireTimeoutMs: 5000,
  connectTimeoutMs: 5000,
  statementTimeoutMs: 5000,
  keepAliveMs: 10_000,
  busyTimeoutMs: 5000,
};
