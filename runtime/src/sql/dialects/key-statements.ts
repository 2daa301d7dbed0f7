// The statements that read, take over, complete and release one key in the idempotency key
// table (key-table.ts), alike on PostgreSQL and MySQL/MariaDB but for quoting, each as SQL with
// its bindings in order; on PostgreSQL each carries the name it is prepared under.
import { createHash } from 'node:crypto';

export const COLUMNS =
  'status_code, body, content_type, created_at_ms, expires_at_ms, reservation, fingerprint, response_headers';

/** One statement and its bindings. */
export interface BoundSql {
  sql: string;
  bindings: unknown[];
  /**
   * The name to prepare it under, where the database keeps prepared statements per connection
   * (PostgreSQL): parsed and planned once per connection instead of on every call.
   */
  name?: string;
}

/** Sends one statement and answers the driver's result. */
export type SendSql = (statement: BoundSql) => Promise<unknown>;

/** A new in-flight record. */
export interface ReservationValues {
  key: string;
  statusCode: number;
  createdAtMs: number;
  expiresAtMs: number;
  reservation: string;
  fingerprint: string | null;
}

/** A completed response, written only by the holder of `reservation`. */
export interface CompletionValues {
  key: string;
  reservation: string;
  inFlightStatus: number;
  statusCode: number;
  body: unknown;
  contentType: string;
  createdAtMs: number;
  expiresAtMs: number;
  headers: string | null;
}

/** The statements on one key, each fenced by the reservation that holds it. */
export interface FencedStatements {
  select(table: string, key: string): BoundSql;
  /** Take over an expired row only if nobody did since we read it (same old token). */
  reclaim(table: string, values: ReservationValues, expiredReservation: string): BoundSql;
  /** Fenced completion: only the holder of the current in-flight reservation writes. */
  complete(table: string, values: CompletionValues): BoundSql;
  release(table: string, key: string, reservation: string, inFlightStatus: number): BoundSql;
}

/** The statement texts of one table, made once per table rather than on every call. */
export function perTable<T>(make: (table: string) => T): (table: string) => T {
  const made = new Map<string, T>();
  return (table) => {
    let texts = made.get(table);
    if (texts === undefined) made.set(table, (texts = make(table)));
    return texts;
  };
}

/** A prepared statement's name, from its text: one text, one name, so no two ever clash. */
export const preparedName = (sql: string) =>
  `slicekit_idem_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;

/**
 * The statements that read, take over, complete and release one key: alike but for quoting.
 * `prepared` names them, for a database that keeps prepared statements per connection.
 */
export function fenced(quote: (table: string) => string, prepared: boolean): FencedStatements {
  const named = (sql: string) => ({ sql, name: prepared ? preparedName(sql) : undefined });
  const texts = perTable((table) => ({
    select: named(`SELECT ${COLUMNS} FROM ${quote(table)} WHERE storage_key = ?`),
    reclaim: named(`UPDATE ${quote(table)}
  SET status_code = ?, body = NULL, content_type = '', created_at_ms = ?, expires_at_ms = ?, reservation = ?,
    fingerprint = ?, response_headers = NULL
  WHERE storage_key = ? AND reservation = ? AND expires_at_ms <= ?`),
    complete: named(`UPDATE ${quote(table)}
  SET status_code = ?, body = ?, content_type = ?, created_at_ms = ?, expires_at_ms = ?,
    response_headers = ?
  WHERE storage_key = ? AND reservation = ? AND status_code = ?`),
    release: named(
      `DELETE FROM ${quote(table)} WHERE storage_key = ? AND reservation = ? AND status_code = ?`,
    ),
  }));
  return {
    select: (table, key) => ({ ...texts(table).select, bindings: [key] }),
    reclaim: (table, v, expired) => ({
      ...texts(table).reclaim,
      bindings: [
        v.statusCode,
        v.createdAtMs,
        v.expiresAtMs,
        v.reservation,
        v.fingerprint,
        v.key,
        expired,
        v.createdAtMs,
      ],
    }),
    complete: (table, v) => ({
      ...texts(table).complete,
      bindings: [
        v.statusCode,
        v.body,
        v.contentType,
        v.createdAtMs,
        v.expiresAtMs,
        v.headers,
        v.key,
        v.reservation,
        v.inFlightStatus,
      ],
    }),
    release: (table, key, reservation, inFlight) => ({
      ...texts(table).release,
      bindings: [key, reservation, inFlight],
    }),
  };
}
