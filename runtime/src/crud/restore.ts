// Restore: a soft-deleted row back among the live ones, with exactly the rows its delete's
// cascade took, all or nothing: refused as a new write would be (409 for a unique value a live row
// took since, 422 for a reference or many-to-many link to a row deleted or gone), for the row and
// each row it brings back, in one transaction.
import type { Knex } from 'knex';
import { transactionWithRetry } from '../database/index.js';
import { recordEvents, rowEvents } from '../events/index.js';
import { asCaller, type Caller } from './caller.js';
import { restoreTaken } from './deletion.js';
import { isUniqueViolation } from './duplicates.js';
import { tagSourced } from './precondition.js';
import { notFound } from './errors.js';
import { brokenReferences, restoreDuplicate, unrestorable } from './restored.js';
import { checkId, eventsOf, findRow, openChange } from './repository.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;

/**
 * Restores the soft-deleted row of `id` (among the caller's rows, for an owned table) with exactly
 * the rows its delete's cascade took, and answers with the stored row; 404 when the caller has no
 * such row, deleted or not; a live row is answered as it is. 412 when `If-Match` does not match;
 * 409 `crud.duplicate` when a live row now holds a unique value of the row or of one it brings
 * back; 422 `crud.invalid_reference` when one of those rows names, by a reference or a
 * many-to-many link, a row that is deleted or gone (each named in `errors`). Refused, nothing is restored. Declared `Restored` events are recorded
 * in the same transaction.
 *
 * @example
 * const row = await restoreEntity(knex, bookTable, id, callerOf(req));
 */
export async function restoreEntity(
  knex: Knex,
  table: EntityTable<unknown>,
  id: string,
  caller: Caller | string = '',
): Promise<Row> {
  const who = asCaller(caller);
  const key = checkId(table, id);
  if (!table.deletedColumn) throw notFound(table.entityName, id);
  const deletion = table.fields.find((f) => f.property === 'deletionId')!.column;
  // The deleted row as stored, for naming what a unique index refused.
  const stored: Row = {};
  try {
    return await transactionWithRetry(knex, async (trx) => {
      const found = await openChange(trx, table, id, who, 'include');
      if (found[table.deletedColumn!] === null) return tagSourced(table, found);
      Object.assign(stored, found);
      const restored = await restoreTaken(trx, table, key, String(found[deletion]));
      // Every row back must name live rows only, by its references and links, as on a new write.
      const broken = await brokenReferences(trx, restored, who);
      if (broken.length > 0) throw unrestorable(table, key, broken);
      const row = await findRow(trx, table, id, who, false, true);
      const events = eventsOf(table);
      if (events) await recordEvents(trx, rowEvents(events, 'Restored', table.fromRow(row) as Row));
      return row;
    });
  } catch (error) {
    if (!isUniqueViolation(error) || stored[deletion] == null) throw error;
    throw await restoreDuplicate(knex, table, stored, key, String(stored[deletion]), who);
  }
}
