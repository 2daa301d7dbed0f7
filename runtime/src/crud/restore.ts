// Restore: a soft-deleted row back among the live ones, with exactly the rows its delete's
// cascade took, refused as a new write would be (409 for a unique value a live row took since, 422
// for a reference to a row deleted or gone).
import type { Knex } from 'knex';
import { transactionWithRetry } from '../database/index.js';
import { recordEvents, rowEvents } from '../events/index.js';
import { withEntityTag } from '../http/index.js';
import { asCaller, type Caller } from './caller.js';
import { applyRestoreRules, deletionMarks } from './deletion.js';
import { refusingDuplicates } from './duplicates.js';
import { notFound } from './errors.js';
import { visibleRows } from './owner.js';
import { checkReferences } from './references.js';
import { checkId, checkPrecondition, eventsOf, findRow } from './repository.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;

/**
 * Restores the soft-deleted row of `id` (among the caller's rows, for an owned table) with exactly
 * the rows its delete's cascade took, and answers with the stored row; 404 when the caller has no
 * such row, deleted or not; a live row is answered as it is. 412 when `If-Match` does not match,
 * 409 when a live row now holds one of its unique values, 422 when it names a row that is
 * deleted or gone. Declared `Restored` events are recorded in the same transaction.
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
  const values: Row = {};
  return refusingDuplicates(knex, table, key, values, () =>
    transactionWithRetry(knex, async (trx) => {
      const stored = await findRow(trx, table, id, who.principal, true, false, 'include');
      checkPrecondition(table, id, stored, who);
      if (stored[table.deletedColumn!] === null)
        return withEntityTag(stored, table.entityTag(stored));
      Object.assign(values, stored);
      // Its references must name live rows again, as on a new write (links are left as they are).
      await checkReferences(trx, table, { ...stored }, {}, who.principal);
      await visibleRows(trx, table, who.principal, 'include')
        .where(table.idColumn, key)
        .update(deletionMarks(table));
      await applyRestoreRules(trx, table, [key], String(stored[deletion]));
      const row = await findRow(trx, table, id, who.principal, false, true);
      const events = eventsOf(table);
      if (events) await recordEvents(trx, rowEvents(events, 'Restored', table.fromRow(row) as Row));
      return row;
    }),
  );
}
