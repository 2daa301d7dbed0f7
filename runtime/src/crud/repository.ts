// Load / call / save: the persistence steps every generated handler takes, with audit stamping,
// ownership and declared events. A change runs in one transaction and answers with the row as
// stored, so the DTO shows exactly what the database kept (decimals, time precision), and the
// events it raises are written to the outbox in that same transaction.
import type { Knex } from 'knex';
import { createdEvents, updatedEvents, type EntityEvents } from '../events/declared.js';
import { recordEvents } from '../events/record.js';
import { ProblemError } from '../http/problem.js';
import { INVALID_REQUEST_TYPE, notFound } from './errors.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;
type Db = Knex | Knex.Transaction;

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

/**
 * The rows of `table` the caller may reach: all of them, or for an owned table only those whose
 * `ownedBy` is `principal` (anonymous callers, `''`, share the rows created anonymously). Another
 * caller's row is then simply not found, so a 404 never tells that it exists.
 *
 * @example
 * const mine = await visibleRows(knex, productTable, principalOf(req)).where('price', '>', 10);
 */
export function visibleRows(
  db: Db,
  table: EntityTable<unknown>,
  principal = '',
): Knex.QueryBuilder {
  return ownRowsOnly(db(table.table), table, principal);
}

/** Narrows `query` on `table` to the rows `principal` owns, when the table is owned. */
export function ownRowsOnly(
  query: Knex.QueryBuilder,
  table: EntityTable<unknown>,
  principal: string,
): Knex.QueryBuilder {
  return table.ownerColumn ? query.where(`${table.table}.${table.ownerColumn}`, principal) : query;
}

/** The row of `id`, among those `principal` may reach; a 404 problem when there is none. */
export async function loadRow(
  db: Db,
  table: EntityTable<unknown>,
  id: string,
  principal = '',
): Promise<Row> {
  const key = checkId(table, id);
  const row = (await visibleRows(db, table, principal).where(table.idColumn, key).first()) as
    Row | undefined;
  if (!row) throw notFound(table.entityName, id);
  return row;
}

/** The entity of `id` (an instance of its class); a 404 problem when there is none. */
export async function loadEntity<E>(
  db: Db,
  table: EntityTable<E>,
  id: string,
  principal = '',
): Promise<E> {
  return table.fromRow(await loadRow(db, table as EntityTable<unknown>, id, principal));
}

function idOf<E>(table: EntityTable<E>, entity: E): string {
  return String((entity as Row)[table.idProperty]);
}

function eventsOf(table: EntityTable<unknown>): EntityEvents | undefined {
  if (table.events.length === 0) return undefined;
  return { entity: table.entityName, idField: table.idProperty, declarations: table.events };
}

/**
 * Inserts a new entity and answers with the stored row. Audited entities get `createdBy` and
 * `updatedBy` set to `principal` (the caller's id, empty when anonymous) and `createdOn` and
 * `updatedOn` to now: the first save is a save too. Owned entities get `ownedBy` = `principal`.
 * Declared `Created` events are recorded in the same transaction, from the stored values.
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
  const any = table as EntityTable<unknown>;
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
    const row = await loadRow(trx, any, idOf(table, entity), principal);
    const events = eventsOf(any);
    if (events) await recordEvents(trx, createdEvents(events, any.fromRow(row) as Row));
    return row;
  });
}

/**
 * Loads the entity of `id` (among the caller's rows, for an owned table), runs `change` on it and
 * saves it, in one transaction; answers with the stored row. Audited entities get `updatedOn` and
 * `updatedBy`: the principal, unless `change` recorded an updater itself by setting `updatedBy`
 * (as the spec's `Approve` does). Declared `Updated` events whose fields changed are recorded in
 * the same transaction; a change touching none of them raises nothing.
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
  const any = table as EntityTable<unknown>;
  return knex.transaction(async (trx) => {
    const stored = await loadRow(trx, any, id, principal);
    const entity = table.fromRow(stored);
    const target = entity as Row;
    // Cleared first, so an updater the method records is told apart from the stored one.
    if (table.audited) target.updatedBy = null;
    await change(entity);
    if (table.audited) {
      target.updatedOn = new Date();
      if (target.updatedBy === null || target.updatedBy === undefined) target.updatedBy = principal;
    }
    const values = table.toRow(entity);
    delete values[table.idColumn];
    // The owner never changes hands through a save.
    if (table.ownerColumn) delete values[table.ownerColumn];
    await visibleRows(trx, any, principal).where(table.idColumn, checkId(any, id)).update(values);
    const row = await loadRow(trx, any, id, principal);
    const events = eventsOf(any);
    if (events) {
      const before = any.fromRow(stored) as Row;
      await recordEvents(trx, updatedEvents(events, before, any.fromRow(row) as Row));
    }
    return row;
  });
}

/** Deletes the row of `id` (among the caller's rows, for an owned table); 404 when there is none. */
export async function deleteEntity(
  knex: Knex,
  table: EntityTable<unknown>,
  id: string,
  principal = '',
): Promise<void> {
  const key = checkId(table, id);
  const deleted = await visibleRows(knex, table, principal).where(table.idColumn, key).delete();
  if (deleted === 0) throw notFound(table.entityName, id);
}
