// Load / call / save: the persistence steps every generated handler takes, with audit stamping.
// A change runs in one transaction and answers with the row as stored, so the DTO shows exactly
// what the database kept (decimals, time precision).
import type { Knex } from 'knex';
import { ProblemError } from '../http/problem.js';
import { INVALID_REQUEST_TYPE, notFound } from './errors.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;

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
        : id.length > 0;
  if (ok) return table.idKind === 'uuid' ? id.toLowerCase() : id;
  const expected =
    table.idKind === 'uuid'
      ? 'a UUID'
      : table.idKind === 'integer'
        ? 'a whole number'
        : 'not empty';
  const message = `must be ${expected}`;
  throw new ProblemError(400, `the id ${message}`, {
    type: INVALID_REQUEST_TYPE,
    code: 'crud.invalid_request',
    errors: [{ field: 'id', message, keyword: 'format' }],
  });
}

/** The stored row of `id`; a 404 problem when there is none. */
export async function loadRow(
  db: Knex | Knex.Transaction,
  table: EntityTable<unknown>,
  id: string,
): Promise<Row> {
  const key = checkId(table, id);
  const row = (await db(table.table).where(table.idColumn, key).first()) as Row | undefined;
  if (!row) throw notFound(table.entityName, id);
  return row;
}

/** The entity of `id` (an instance of its class); a 404 problem when there is none. */
export async function loadEntity<E>(
  db: Knex | Knex.Transaction,
  table: EntityTable<E>,
  id: string,
): Promise<E> {
  return table.fromRow(await loadRow(db, table as EntityTable<unknown>, id));
}

function idOf<E>(table: EntityTable<E>, entity: E): string {
  return String((entity as Row)[table.idProperty]);
}

/**
 * Inserts a new entity and answers with the stored row. Audited entities get `createdBy` and
 * `updatedBy` set to `principal` (the caller's id, empty when anonymous) and `createdOn` and
 * `updatedOn` to now: the first save is a save too. Owned entities get `ownedBy` = `principal`.
 *
 * @example
 * const row = await insertEntity(knex, productTable, new Product('Desk', 120), principalOf(req));
 */
export async function insertEntity<E>(
  knex: Knex,
  table: EntityTable<E>,
  entity: E,
  principal: string,
): Promise<Row> {
  const target = entity as Row;
  if (table.audited) {
    const now = new Date();
    target.createdBy = principal;
    target.createdOn = now;
    target.updatedBy = principal;
    target.updatedOn = now;
  }
  if (table.owned) target.ownedBy = principal;
  return knex.transaction(async (trx) => {
    await trx(table.table).insert(table.toRow(entity));
    return loadRow(trx, table as EntityTable<unknown>, idOf(table, entity));
  });
}

/**
 * Loads the entity of `id`, runs `change` on it and saves it, in one transaction; answers with the
 * stored row. Audited entities get `updatedOn` and `updatedBy`: the principal, unless `change`
 * recorded an updater itself by setting `updatedBy` (as the spec's `Approve` does).
 *
 * @example
 * const row = await changeEntity(knex, productTable, id, principal, (p) => p.changePrice(9.5));
 */
export async function changeEntity<E>(
  knex: Knex,
  table: EntityTable<E>,
  id: string,
  principal: string,
  change: (entity: E) => void | Promise<void>,
): Promise<Row> {
  return knex.transaction(async (trx) => {
    const entity = await loadEntity(trx, table, id);
    const target = entity as Row;
    // Cleared first, so an updater the method records is told apart from the stored one.
    if (table.audited) target.updatedBy = null;
    await change(entity);
    if (table.audited) {
      target.updatedOn = new Date();
      if (target.updatedBy === null || target.updatedBy === undefined) target.updatedBy = principal;
    }
    const row = table.toRow(entity);
    delete row[table.idColumn];
    await trx(table.table)
      .where(table.idColumn, checkId(table as EntityTable<unknown>, id))
      .update(row);
    return loadRow(trx, table as EntityTable<unknown>, id);
  });
}

/** Deletes the row of `id`; a 404 problem when there is none. */
export async function deleteEntity(
  knex: Knex,
  table: EntityTable<unknown>,
  id: string,
): Promise<void> {
  const key = checkId(table, id);
  const deleted = await knex(table.table).where(table.idColumn, key).delete();
  if (deleted === 0) throw notFound(table.entityName, id);
}
