// Soft delete's marks: what a delete writes on the rows it takes (the row and its cascade) and a
// restore clears, and which rows one delete's cascade took (what its restore brings back).
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

/** Rows of one table, by id: what one soft delete took there, or one restore brings back. */
export interface TakenRows {
  readonly table: EntityTable<unknown>;
  readonly ids: readonly unknown[];
}

/**
 * The rows the cascade of the soft delete `deletionId` took under rows `ids` of `table` (those
 * carrying that `deletionId`, level by level), and no other deleted row; the rows themselves not
 * included.
 */
export async function rowsTakenWith(
  db: Db,
  table: EntityTable<unknown>,
  ids: readonly unknown[],
  deletionId: string,
  depth = 0,
): Promise<TakenRows[]> {
  const taken: TakenRows[] = [];
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
    taken.push({ table: child, ids: childIds });
    taken.push(...(await rowsTakenWith(db, child, childIds, deletionId, depth + 1)));
  }
  return taken;
}

/**
 * Brings back row `id` of `table` and exactly the rows its soft delete (`deletionId`) took with
 * it; answers every row restored, the row itself first.
 */
export async function restoreTaken(
  db: Db,
  table: EntityTable<unknown>,
  id: string,
  deletionId: string,
): Promise<TakenRows[]> {
  const restored = [{ table, ids: [id] }, ...(await rowsTakenWith(db, table, [id], deletionId))];
  for (const { table: t, ids } of restored) {
    await db(t.table)
      .whereIn(t.idColumn, ids as Knex.Value[])
      .update(deletionMarks(t));
  }
  return restored;
}
