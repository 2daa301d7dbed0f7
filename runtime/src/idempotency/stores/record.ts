// One idempotency record as the shipped stores keep it (a table row, a Redis value, a memory
// entry), and its state, decided from the record's timestamps when it is read.
import { IN_FLIGHT_STATUS, type CachedResponse, type ResponseHeader } from '../store.js';

/**
 * The states of a stored record. Only `inFlight` and `completed` are ever written (as the status
 * code: the sentinel `IN_FLIGHT_STATUS` or the response's own); `expired` is computed at read time
 * from `expiresAtMs`, never trusted from storage.
 */
export const RecordState = {
  /** A reservation: its holder's handler is running; duplicates get no response. */
  inFlight: 'in_flight',
  /** A stored response, replayed until it expires. */
  completed: 'completed',
  /** Past its `expiresAtMs`: counts as absent, and exactly one caller may take it over. */
  expired: 'expired',
} as const;

export type RecordState = (typeof RecordState)[keyof typeof RecordState];

/** A record as read back from a store. Times are epoch milliseconds (UTC). */
export interface StoredRecord {
  /** The token of the reservation that wrote the record: what fences completion and release. */
  readonly reservation: string;
  /** The response's status; `IN_FLIGHT_STATUS` (102, the spec's sentinel) while reserved. */
  readonly statusCode: number;
  /** The response body bytes; `null` for a body-less response and for a reservation. */
  readonly body: Buffer | null;
  /** The response's content type; empty for a reservation. */
  readonly contentType: string;
  /** The response's recorded headers, in order; empty for a reservation. */
  readonly headers: readonly ResponseHeader[];
  readonly createdAtMs: number;
  /** End of the reservation, or of the response's validity; `null` means no expiry. */
  readonly expiresAtMs: number | null;
  /** The fingerprint of the request that reserved the key; `null` when none was kept. */
  readonly fingerprint: string | null;
}

/** A record a store is asked to write: it always expires (the in-flight timeout or `expiration`). */
export interface NewRecord extends StoredRecord {
  readonly expiresAtMs: number;
}

/** No recorded headers: a reservation's, and a response's that set none of the listed ones. */
export const NO_HEADERS: readonly ResponseHeader[] = Object.freeze([]);

/**
 * The headers as a text column holds them: JSON pairs, or `null` for none. Values are JS strings
 * of bytes 0x00-0xFF (what Node accepts in a header), so they survive UTF-8 text storage intact.
 */
export function headersText(headers: readonly ResponseHeader[]): string | null {
  return headers.length === 0 ? null : JSON.stringify(headers);
}

/** The headers read back from `headersText`'s form; `null` (or a row from before) is none. */
export function headersFromText(text: string | null | undefined): readonly ResponseHeader[] {
  return text ? (JSON.parse(text) as ResponseHeader[]) : NO_HEADERS;
}

/** The state of `record` at `now`: expiry first, from the timestamps; then the status sentinel. */
export function recordState(record: StoredRecord, now: number): RecordState {
  if (record.expiresAtMs !== null && record.expiresAtMs <= now) return RecordState.expired;
  return record.statusCode === IN_FLIGHT_STATUS ? RecordState.inFlight : RecordState.completed;
}

/** A reservation placeholder for `reservation`, written at `now`, held for `timeoutMs`. */
export function inFlightRecord(
  reservation: string,
  now: number,
  timeoutMs: number,
  fingerprint: string | null,
): NewRecord {
  return {
    reservation,
    statusCode: IN_FLIGHT_STATUS,
    body: null,
    contentType: '',
    headers: NO_HEADERS,
    createdAtMs: now,
    expiresAtMs: now + timeoutMs,
    fingerprint,
  };
}

/** The response a completed record replays. */
export function toCachedResponse(record: StoredRecord): CachedResponse {
  return {
    statusCode: record.statusCode,
    body: record.body,
    contentType: record.contentType,
    headers: record.headers,
    createdAt: new Date(record.createdAtMs),
    expiresAt: record.expiresAtMs === null ? null : new Date(record.expiresAtMs),
  };
}
