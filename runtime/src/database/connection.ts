// Bounding what a pooled connection may wait for, and dropping a connection that timed out, so a
// silent database fails requests quickly and the pool recovers by itself once it answers again.
// Each dialect (sql/dialects/) knows how its driver is bounded.
import { dialectNamed, type AfterCreate, type ConnectionBounds } from '../sql/index.js';

export type { ConnectionBounds } from '../sql/index.js';

/** The database family a Knex configuration is for. */
export type ConnectionDialect = 'postgres' | 'mysql' | 'sqlite';

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
): AfterCreate {
  return dialectNamed(dialect).boundConnection(bounds);
}
