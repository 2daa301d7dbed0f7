// What a restore must not bring back: a row (the restored one, or one its delete's cascade took)
// whose reference or many-to-many link names a row deleted or gone since, and a row whose unique value a live row took
// since. Either refuses the whole restore: nothing comes back.
import type { Knex } from 'knex';
import { ProblemError } from '../http/index.js';
import type { Caller } from './caller.js';
import { rowsTakenWith, type TakenRows } from './deletion.js';
import { duplicate, duplicateProblem, heldGroup } from './duplicates.js';
import { liveRowsOnly, scopeRows, tenantCondition } from './row-scope.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;
type Db = Knex | Knex.Transaction;

/** One reference of a restored row that names no live row. */
export interface BrokenReference {
  /** The entity of the row holding the reference (the restored one, or one of its cascade). */
  readonly entity: string;
  /** That row's id. */
  readonly id: string;
  /** Its reference property. */
  readonly field: string;
  readonly message: string;
  readonly keyword: 'reference';
}

const text = (value: unknown) => String(value).toLowerCase();

/**
 * The `rows` whose `key` names no live row of `target` in the caller's tenant (ids compared
 * lower-cased). Owners are not looked at: a row restored by a bypass role may name another
 * caller's rows.
 */
async function deadRows(
  db: Db,
  rows: readonly Row[],
  key: string,
  target: EntityTable<unknown>,
  caller: Caller,
): Promise<Row[]> {
  const named = [...new Set(rows.map((row) => text(row[key])))];
  const column = `${target.table}.${target.idColumn}`;
  const scoped = scopeRows(db(target.table), target, caller, tenantCondition(target, caller));
  const found = (await liveRowsOnly(scoped, target)
    .whereIn(column, named)
    .pluck(column)) as unknown[];
  const live = new Set(found.map(text));
  return rows.filter((row) => !live.has(text(row[key])));
}

/**
 * The references and many-to-many links of the `restored` rows (each table's, by id) that name
 * no live row of the caller's tenant: a row deleted (soft) or gone. Read once the restore has
 * cleared its marks, so a reference or link to a row the same restore brings back holds. Whatever
 * the row's `onDelete`, the check does not look at owners: a row restored by a bypass role may
 * name another caller's rows. A link's join rows are kept through a soft delete; one naming a row
 * deleted since is named here, as a new write naming it would be refused.
 */
export async function brokenReferences(
  db: Db,
  restored: readonly TakenRows[],
  caller: Caller,
): Promise<BrokenReference[]> {
  const broken: BrokenReference[] = [];
  const named = (entity: string, id: unknown, field: string, target: string, ids: string) =>
    broken.push({
      entity,
      id: String(id),
      field,
      message: `names a ${target} that is deleted or gone: ${ids}`,
      keyword: 'reference',
    });
  for (const { table, ids } of restored) {
    for (const reference of table.references) {
      const rows = (await db(table.table)
        .whereIn(table.idColumn, ids as Knex.Value[])
        .whereNotNull(reference.column)
        .select(table.idColumn, reference.column)) as Row[];
      if (rows.length === 0) continue;
      const target = reference.to();
      for (const row of await deadRows(db, rows, reference.column, target, caller)) {
        const value = String(row[reference.column]);
        named(table.entityName, row[table.idColumn], reference.property, target.entityName, value);
      }
    }
    for (const link of table.links) {
      const rows = (await db(link.joinTable)
        .whereIn(link.localKey, ids as Knex.Value[])
        .orderBy(link.foreignKey)
        .select(link.localKey, link.foreignKey)) as Row[];
      if (rows.length === 0) continue;
      const target = link.to();
      const missing = new Map<string, string[]>();
      for (const row of await deadRows(db, rows, link.foreignKey, target, caller)) {
        const id = String(row[link.localKey]);
        missing.set(id, [...(missing.get(id) ?? []), String(row[link.foreignKey])]);
      }
      for (const [id, gone] of missing) {
        named(table.entityName, id, link.property, target.entityName, gone.join(', '));
      }
    }
  }
  return broken;
}

/**
 * The 422 problem (`crud.invalid_reference`) of restoring row `id` of `table` while `broken`
 * references name rows deleted or gone: each entry names the row holding it (`entity`, `id`) and
 * its `field`. Restoring the rows named first (or changing the references) lets it through.
 */
export function unrestorable(
  table: EntityTable<unknown>,
  id: string,
  broken: readonly BrokenReference[],
): ProblemError {
  const which = broken.map((b) => `${b.entity} ${b.id} (${b.field})`).join(', ');
  return ProblemError.of(
    'crud.invalid_reference',
    `${table.entityName} ${id} cannot be restored: ${which} would name a row that is deleted or ` +
      'gone; restore that row first',
    { errors: broken },
  );
}

/**
 * The 409 problem of a restore a unique index refused: the restored row's own unique value a live
 * row took since, or else one of a row its delete's cascade took (named in the detail). Looked up
 * outside the failed transaction, where those rows are still deleted.
 */
export async function restoreDuplicate(
  knex: Knex,
  table: EntityTable<unknown>,
  row: Row,
  id: string,
  deletionId: string,
  caller: Caller,
): Promise<ProblemError> {
  const own = await heldGroup(knex, table, row, id, caller);
  if (own) return duplicate(table, own);
  for (const { table: child, ids } of await rowsTakenWith(knex, table, [id], deletionId)) {
    if (child.unique.length === 0) continue;
    const rows = (await knex(child.table).whereIn(child.idColumn, ids as Knex.Value[])) as Row[];
    for (const taken of rows) {
      const takenId = String(taken[child.idColumn]);
      const fields = await heldGroup(knex, child, taken, takenId, caller);
      if (!fields) continue;
      const detail =
        `${table.entityName} ${id} cannot be restored: it would bring back ${child.entityName} ` +
        `${takenId}, and another ${child.entityName} already has its ${fields.join(' and ')}`;
      return duplicate(child, fields, detail);
    }
  }
  return duplicateProblem(knex, table, row, id, caller);
}
