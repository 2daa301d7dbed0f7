// References between rows, kept in the transaction of the change that makes or removes them: a
// create or change naming a row the caller cannot see answers 422 naming the field; deleting a row
// still referenced under `restrict` answers 409 saying by what, `cascade` deletes the rows
// referring to it and `setNull` clears their reference; a many-to-many's join rows follow the
// entity's id list. A foreign key the database still refuses (a row deleted meanwhile) is
// answered the same way, never as a 500.
import type { Knex } from 'knex';
import { ProblemError, problemKinds } from '../http/index.js';
import { isDatabaseError } from '../sql/index.js';
import { deletionMarks, MAX_CASCADE_DEPTH, type SoftDeletion } from './deletion.js';
import { liveRowsOnly, ownRowsOnly } from './owner.js';
import { linksTo, referencesTo } from './referencing.js';
import type { EntityTable } from './table.js';

export const INVALID_REFERENCE_TYPE = problemKinds['crud.invalid_reference'].type;
export const STILL_REFERENCED_TYPE = problemKinds['crud.still_referenced'].type;

type Row = Record<string, unknown>;
type Db = Knex | Knex.Transaction;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids as stored: text, lower-case (a UUID compares exactly on every database), each once. */
function idList(value: unknown): unknown[] {
  const list = Array.isArray(value) ? value : [];
  return [...new Set(list.map((id) => (typeof id === 'string' ? id.toLowerCase() : id)))];
}

/** The 422 problem of reference fields naming rows the caller cannot see. */
function invalidReference(errors: { field: string; message: string }[]): ProblemError {
  const fields = errors.map((e) => e.field);
  return ProblemError.of(
    'crud.invalid_reference',
    `${fields.join(', ')} ${fields.length > 1 ? 'name' : 'names'} no row you can see`,
    { errors: errors.map((e) => ({ ...e, keyword: 'reference' })) },
  );
}

/** Which of `ids` name rows of `target` the caller may see. */
async function visibleIds(
  db: Db,
  target: EntityTable<unknown>,
  ids: readonly unknown[],
  principal: string,
): Promise<Set<string>> {
  const wellFormed = ids.filter((id): id is string => typeof id === 'string' && UUID.test(id));
  if (wellFormed.length === 0) return new Set();
  const found = (await liveRowsOnly(ownRowsOnly(db(target.table), target, principal), target)
    .whereIn(`${target.table}.${target.idColumn}`, wellFormed)
    .pluck(`${target.table}.${target.idColumn}`)) as unknown[];
  return new Set(found.map((id) => String(id).toLowerCase()));
}

/**
 * Refuses (422) a row whose references name rows the caller may not see: another caller's row of
 * an owned table, or a soft-deleted row, is as unknown as a missing one. Only what changed since `before` (the stored row
 * of a change) is checked. Reference columns of `row` and id lists of `entity` are lower-cased.
 */
export async function checkReferences(
  db: Db,
  table: EntityTable<unknown>,
  row: Row,
  entity: Row,
  principal: string,
  before?: { row: Row; links: Row },
): Promise<void> {
  const errors: { field: string; message: string }[] = [];
  for (const reference of table.references) {
    const value = row[reference.column];
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') row[reference.column] = value.toLowerCase();
    const stored = before?.row[reference.column];
    if (stored !== undefined && String(stored).toLowerCase() === row[reference.column]) continue;
    const target = reference.to();
    if ((await visibleIds(db, target, [row[reference.column]], principal)).size === 0) {
      errors.push({
        field: reference.property,
        message: `names no ${target.entityName} you can see: ${String(value)}`,
      });
    }
  }
  for (const link of table.links) {
    const ids = idList(entity[link.property]);
    entity[link.property] = ids;
    const kept = new Set(idList(before?.links[link.property]));
    const added = ids.filter((id) => !kept.has(id as string));
    const found = await visibleIds(db, link.to(), added, principal);
    const missing = added.filter((id) => !found.has(String(id)));
    if (missing.length > 0) {
      errors.push({
        field: link.property,
        message: `names no ${link.to().entityName} you can see: ${missing.map(String).join(', ')}`,
      });
    }
  }
  if (errors.length > 0) throw invalidReference(errors);
}

/** Reads each many-to-many's id list of row `id` onto `entity` (sorted). */
export async function loadLinks(
  db: Db,
  table: EntityTable<unknown>,
  entity: Row,
  id: string,
): Promise<Row> {
  const links: Row = {};
  for (const link of table.links) {
    const ids = (await db(link.joinTable)
      .where(link.localKey, id)
      .orderBy(link.foreignKey)
      .pluck(link.foreignKey)) as unknown[];
    links[link.property] = ids.map((v) => String(v).toLowerCase());
    entity[link.property] = [...(links[link.property] as string[])];
  }
  return links;
}

/** Writes the join rows of row `id` as the entity's id lists say, when they changed. */
export async function saveLinks(
  db: Db,
  table: EntityTable<unknown>,
  entity: Row,
  id: string,
  before?: Row,
): Promise<void> {
  for (const link of table.links) {
    const ids = idList(entity[link.property]);
    const previous = idList(before?.[link.property]);
    if (before && ids.length === previous.length && ids.every((v) => previous.includes(v))) {
      continue;
    }
    if (before) await db(link.joinTable).where(link.localKey, id).delete();
    if (ids.length > 0) {
      await db(link.joinTable).insert(
        ids.map((other) => ({ [link.localKey]: id, [link.foreignKey]: other })),
      );
    }
  }
}

/** Whether deleting a row of `table` has more to do than delete it (references, join rows). */
export function hasDeleteRules(table: EntityTable<unknown>): boolean {
  return referencesTo(table).length > 0 || linksTo(table).length > 0;
}

/** The 409 problem of a row still referenced under `restrict`. */
function stillReferenced(
  table: EntityTable<unknown>,
  ids: readonly unknown[],
  by: { entity: string; field: string }[],
): ProblemError {
  const what = by.map((b) => `${b.entity} (${b.field})`).join(', ');
  return ProblemError.of(
    'crud.still_referenced',
    `${table.entityName} ${ids.map(String).join(', ')} is still referenced by ${what}; ` +
      'delete those rows or change their reference first',
    { referencedBy: by },
  );
}

/** The rows of `child` whose `column` names one of `ids`, live only under a soft delete. */
function referring(
  db: Db,
  child: EntityTable<unknown>,
  column: string,
  ids: readonly unknown[],
  soft: boolean,
) {
  const query = db(child.table).whereIn(`${child.table}.${column}`, ids as Knex.Value[]);
  return soft ? liveRowsOnly(query, child) : query;
}

/**
 * Before rows `ids` of `table` are deleted: refuses (409) while a `restrict` reference names one
 * of them, clears `setNull` references, deletes `cascade` rows (and what refers to those, the same
 * way) and the join rows naming them. Runs in the delete's transaction.
 *
 * Under a soft delete (`soft`, the marks the rows get): `restrict` counts live rows only,
 * `cascade` soft-deletes the live rows referring to them with the same marks (a table without
 * soft delete there is a definition mistake, thrown), and `setNull` references and join rows are
 * kept, so a restore finds everything as it was (a reference to a deleted row reads as none).
 */
export async function applyDeleteRules(
  db: Db,
  table: EntityTable<unknown>,
  ids: readonly unknown[],
  soft?: SoftDeletion,
  depth = 0,
): Promise<void> {
  const referrers = referencesTo(table);
  const restricting = [];
  for (const { table: child, reference } of referrers) {
    if (reference.onDelete !== 'restrict') continue;
    const own = child === table ? ids : [];
    const row = await referring(db, child, reference.column, ids, soft !== undefined)
      .whereNotIn(`${child.table}.${child.idColumn}`, own as Knex.Value[])
      .first(`${child.table}.${child.idColumn}`);
    if (row) restricting.push({ entity: child.entityName, field: reference.property });
  }
  if (restricting.length > 0) throw stillReferenced(table, ids, restricting);
  for (const { table: child, reference } of referrers) {
    if (reference.onDelete === 'setNull' && !soft) {
      await db(child.table)
        .whereIn(reference.column, ids as Knex.Value[])
        .update({ [reference.column]: null });
    } else if (reference.onDelete === 'cascade' && depth < MAX_CASCADE_DEPTH) {
      if (soft && !child.deletedColumn) {
        throw new Error(
          `${table.entityName} soft-deletes but ${child.entityName}.${reference.property} cascades ` +
            `to a table without soft delete; give ${child.entityName} softDelete: true or use onDelete: restrict`,
        );
      }
      const childIds = (await referring(db, child, reference.column, ids, soft !== undefined).pluck(
        `${child.table}.${child.idColumn}`,
      )) as unknown[];
      if (childIds.length === 0) continue;
      await applyDeleteRules(db, child, childIds, soft, depth + 1);
      const rows = db(child.table).whereIn(child.idColumn, childIds as Knex.Value[]);
      await (soft ? rows.update(deletionMarks(child, soft)) : rows.delete());
    }
  }
  if (soft) return;
  for (const { link, column } of linksTo(table)) {
    await db(link.joinTable)
      .whereIn(column, ids as Knex.Value[])
      .delete();
  }
}

/**
 * Whether the database refused a write for a foreign key: PostgreSQL 23503, MySQL/MariaDB
 * ER_NO_REFERENCED_ROW(_2) and ER_ROW_IS_REFERENCED(_2), SQLite SQLITE_CONSTRAINT_FOREIGNKEY.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  return isDatabaseError('foreignKey', error);
}

/**
 * Runs `write` and answers a foreign key the database refused: for a create or change (`row` and
 * `entity` given), the 422 of the references that name no visible row now (looked up outside the
 * failed transaction); for a delete, the 409 of a row still referenced.
 */
export async function refusingBrokenReferences<T>(
  knex: Knex,
  table: EntityTable<unknown>,
  change: { row: Row; entity: Row; principal: string } | { deleting: string },
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    if ('deleting' in change) {
      const by = referencesTo(table).map(({ table: t, reference }) => ({
        entity: t.entityName,
        field: reference.property,
      }));
      throw stillReferenced(table, [change.deleting], by);
    }
    await checkReferences(knex, table, { ...change.row }, { ...change.entity }, change.principal);
    throw invalidReference(
      [...table.references, ...table.links].map((r) => ({
        field: r.property,
        message: 'names a row that no longer exists',
      })),
    );
  }
}
