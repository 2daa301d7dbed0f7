// Soft delete's marks: what a delete writes on the rows it takes (the row and its cascade) and a
// restore clears, and the restore of exactly the rows one delete's cascade took.
import type { Knex } from 'knex';
import { referencesTo } from './referencing.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;
type Db = Knex | Knex.Transaction;

/** Levels of cascades followed here; deeper ones are left to the database's own foreign keys. */
export const MAX_CASCADE_DEPTH = 16;

/** The marks a soft delete writes on the rows it takes (the row itself and its cascade). */
export interface SoftDeletion {
  readonly deletedOn: Date;
  readonly deletedBy: string;
  readonly deletionId: string;
}

/** The columns of `table` a soft delete writes, or (with `undefined`) a restore clears. */
export function deletionMarks(table: EntityTable<unknown>, marks?: SoftDeletion): Row {
  const column = (property: string) => table.fields.find((f) => f.property === property)!.column;
  return {
    [column('deletedOn')]: marks?.deletedOn ?? null,
    [column('deletedBy')]: marks?.deletedBy ?? null,
    [column('deletionId')]: marks?.deletionId ?? null,
  };
}

/**
 * After rows `ids` of `table` are restored: restores the rows their soft delete's cascade took
 * (those carrying `deletionId`), level by level, and no other deleted row.
 */
export async function applyRestoreRules(
  db: Db,
  table: EntityTable<unknown>,
  ids: readonly unknown[],
  deletionId: string,
  depth = 0,
): Promise<void> {
  for (const { table: child, reference } of referencesTo(table)) {
    if (reference.onDelete !== 'cascade' || !child.deletedColumn || depth >= MAX_CASCADE_DEPTH) {
      continue;
    }
    const deletion = child.fields.find((f) => f.property === 'deletionId')!.column;
    const childIds = (await db(child.table)
      .whereIn(reference.column, ids as Knex.Value[])
      .where(deletion, deletionId)
      .pluck(child.idColumn)) as unknown[];
    if (childIds.length === 0) continue;
    await db(child.table)
      .whereIn(child.idColumn, childIds as Knex.Value[])
      .update(deletionMarks(child));
    await applyRestoreRules(db, child, childIds, deletionId, depth + 1);
  }
}
