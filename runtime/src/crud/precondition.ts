// `If-Match` on a change: the tag the caller read (a GET's `ETag`) against the row's current
// representation, read with the row locked. The tag a GET sends covers what its DTO nests
// (related rows, collections, many-to-many members), so the current tag covers them too: read
// here only when the request sends a tag to compare, and only for a table whose DTO nests rows.
import type { Knex } from 'knex';
import { entityTagOf, ifMatchHolds, withEntityTagSource } from '../http/index.js';
import { loadRelated } from '../list-query/index.js';
import type { Caller } from './caller.js';
import { preconditionFailed } from './errors.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;
type Db = Knex | Knex.Transaction;

/**
 * Gives a loaded row its tag source: the digest of its stored values and of what the DTO built
 * from it nests, made when that DTO is (`ListResource.toDto`), once per answer.
 */
export function tagSourced(table: EntityTable<unknown>, row: Row): Row {
  return withEntityTagSource(row, (nested) => table.entityTag(row, nested));
}

/** Whether the DTO `table` declares nests rows of other tables (relations, collections). */
function nestsRows(table: EntityTable<unknown>): boolean {
  return table.dto?.members.some((m) => m.kind === 'relation' || m.kind === 'collection') ?? false;
}

/**
 * The current entity tag of `row`, as a GET of it by `caller` would send it now: the row's own
 * digest, or, for a table whose DTO nests rows, the tag of that DTO with what it nests read in
 * `db` (the change's transaction, after the row's lock), as the caller may see them.
 */
async function currentTag(
  db: Db,
  table: EntityTable<unknown>,
  row: Row,
  caller: Caller,
): Promise<string> {
  if (!table.dto || !nestsRows(table)) return table.entityTag(row);
  // A copy: the change goes on with the row as stored, without what the DTO nests.
  const related = await loadRelated(db, table.dto, tagSourced(table, { ...row }), caller);
  return entityTagOf(table.dto.toDto(related) as object)!;
}

/**
 * Refuses the change of `row` (locked in `db`) when the caller's `If-Match` does not match its
 * current entity tag (412). `*` matches any row, with nothing read.
 */
export async function checkPrecondition(
  db: Db,
  table: EntityTable<unknown>,
  id: string,
  row: Row,
  caller: Caller,
): Promise<void> {
  // Digested only when asked: a change without `If-Match` digests the row it answers with alone.
  const header = caller.ifMatch;
  if (header === undefined || header.trim() === '*') return;
  if (!ifMatchHolds(header, await currentTag(db, table, row, caller))) {
    throw preconditionFailed(table.entityName, id);
  }
}
