// How one idempotency entry is laid out in a Redis string value: binary-safe, and with the
// reservation token and status at fixed offsets so the Lua scripts can check them with one
// `string.sub` instead of decoding anything.
//
//   bytes 0..35   reservation token (a UUID, 36 ASCII characters)
//   bytes 36..38  status code, three ASCII digits (102 = in flight)
//   then          JSON metadata {c: content type, t: created ms, e: expires ms | null, n: 1 if no
//                 body, f: request fingerprint (absent when none), h: recorded headers as
//                 [name, value] pairs (absent when none)}
//   then          "\n" and the body bytes, untouched
import { IN_FLIGHT_STATUS, type ResponseHeader } from '../store.js';
import { NO_HEADERS, type StoredRecord } from './record.js';

export const TOKEN_LENGTH = 36;

interface Meta {
  c: string;
  t: number;
  e: number | null;
  n?: 1;
  f?: string;
  h?: ResponseHeader[];
}

/** The fixed-offset head the scripts compare: token followed by the three status digits. */
export function recordHead(reservation: string, statusCode: number = IN_FLIGHT_STATUS): string {
  if (reservation.length !== TOKEN_LENGTH) {
    throw new RangeError(
      `a reservation token is ${TOKEN_LENGTH} characters, got ${reservation.length}`,
    );
  }
  if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 999) {
    throw new RangeError(`status code ${statusCode} is not a three-digit HTTP status`);
  }
  return `${reservation}${statusCode}`;
}

export function encodeRecord(record: StoredRecord): Buffer {
  const meta: Meta = { c: record.contentType, t: record.createdAtMs, e: record.expiresAtMs };
  if (record.body === null) meta.n = 1;
  if (record.fingerprint !== null) meta.f = record.fingerprint;
  if (record.headers.length > 0) meta.h = [...record.headers];
  const head = Buffer.from(
    `${recordHead(record.reservation, record.statusCode)}${JSON.stringify(meta)}\n`,
  );
  return record.body === null || record.body.length === 0
    ? head
    : Buffer.concat([head, record.body]);
}

export function decodeRecord(value: Buffer): StoredRecord {
  const newline = value.indexOf(0x0a, TOKEN_LENGTH + 3);
  if (newline < 0) throw new Error('not an idempotency record: no metadata terminator');
  const meta = JSON.parse(value.toString('utf8', TOKEN_LENGTH + 3, newline)) as Meta;
  return {
    reservation: value.toString('latin1', 0, TOKEN_LENGTH),
    statusCode: Number(value.toString('latin1', TOKEN_LENGTH, TOKEN_LENGTH + 3)),
    contentType: meta.c,
    createdAtMs: meta.t,
    expiresAtMs: meta.e,
    // Absent in entries written before fingerprints were kept.
    fingerprint: meta.f ?? null,
    headers: meta.h ?? NO_HEADERS,
    // Copy: the reply buffer may be a slice of a larger socket buffer.
    body: meta.n === 1 ? null : Buffer.from(value.subarray(newline + 1)),
  };
}
