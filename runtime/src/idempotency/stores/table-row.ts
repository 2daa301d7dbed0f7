// A row of the key table as the PostgreSQL and MySQL drivers answer it, and the record it holds.
import { headersFromText, type StoredRecord } from './record.js';

/** The columns the stores select (see sql/dialects/key-table.ts). */
export interface KeyTableRow {
  status_code: number | string;
  body: Buffer | null;
  content_type: string;
  created_at_ms: string | number;
  expires_at_ms: string | number;
  reservation: string;
  fingerprint: string | null;
  response_headers: string | null;
}

export function rowToRecord(row: KeyTableRow): StoredRecord {
  return {
    statusCode: Number(row.status_code),
    body: row.body,
    contentType: row.content_type,
    // BIGINT may arrive as a string; epoch milliseconds fit a double exactly.
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
    reservation: row.reservation,
    fingerprint: row.fingerprint ?? null,
    headers: headersFromText(row.response_headers),
  };
}
