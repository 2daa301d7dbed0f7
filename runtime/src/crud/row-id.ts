// The id of a route (`/{id}`), checked before it reaches SQL.
import { ProblemError } from '../http/index.js';
import type { EntityTable } from './table.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?\d{1,15}$/;

/**
 * Refuses an id that cannot name a row (400), before it reaches SQL: PostgreSQL would fail on a
 * malformed UUID instead of finding nothing.
 */
export function checkId(table: EntityTable<unknown>, id: string): string {
  const ok =
    table.idKind === 'uuid'
      ? UUID.test(id)
      : table.idKind === 'integer'
        ? INTEGER.test(id)
        : // PostgreSQL refuses a NUL character in text; refused alike on every database.
          id.length > 0 && !id.includes('\u0000');
  if (ok) return table.idKind === 'uuid' ? id.toLowerCase() : id;
  const expected =
    table.idKind === 'uuid'
      ? 'a UUID'
      : table.idKind === 'integer'
        ? 'a whole number'
        : 'non-empty text without NUL characters';
  const message = `must be ${expected}`;
  throw ProblemError.of('crud.invalid_request', `the id ${message}`, {
    errors: [{ field: 'id', message, keyword: 'format' }],
  });
}
