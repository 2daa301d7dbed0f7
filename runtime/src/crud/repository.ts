// Load / call / save: the persistence steps every generated handler takes, with audit stamping,
// the row scope (tenant, owner), row locks, entity tags and declared events. A change runs in one transaction and
// answers with the row as stored, so the DTO shows exactly what the database kept (decimals, time
// precision), and the events it raises are written to the outbox in that same transaction.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import { retryOnConflict, transactionWithRetry } from '../database/index.js';
import { rowEvents, updatedEvents, type EntityEvents, recordEvents } from '../events/index.js';
import { asCaller, type Caller } from './caller.js';
import { refusingDuplicates } from './duplicates.js';
import { deletionMarks } from './deletion.js';
import { valuesBefore } from './values-before.js';
import {
  liveRowsOnly,
  ownRowsOnly,
  scopeRows,
  tenantCondition,
  visibleRows,
  type DeletedRows,
} from './row-scope.js';
import {
  applyDeleteRules,
  checkReferences,
  hasDeleteRules,
  loadLinks,
  refusingBrokenReferences,
  saveLinks,
} from './references.js';
import { notFound } from './errors.js';
import { checkPrecondition, tagSourced } from './precondition.js';
import { checkId } from './row-id.js';
import type { EntityTable } from './table.js';

export { checkId, liveRowsOnly, ownRowsOnly, scopeRows, visibleRows, type DeletedRows };

type Row = Record<string, unknown>;
type Db = Knex | Knex.Transaction;

/**
 * The row of `id`, among those the caller may reach; a 404 problem when there is none. The row
 * carries its tag source, so the DTO built from it is sent with an `ETag` (`sendEntity`) covering
 * the row and what the DTO nests.
 */
export async function loadRow(
  db: Db,
  table: EntityTable<unknown>,
  id: string,
  caller: Caller | string = '',
): Promise<Row> {
  return findRow(db, table, id, asCaller(caller), false, true);
}

/**
 * The row of `id` among those `caller` may reach (its row scope), locked until the transaction `db` ends when `lock` is set
 * (`SELECT ... FOR UPDATE` on PostgreSQL and MySQL; SQLite's single writer already serialises),
 * carrying its tag source when `tagged` (a row answered to the caller: the tag is digested once
 * per response, when its DTO is built, and not for a row only changed).
 */
export async function findRow(
  db: Db,
  table: EntityTable<unknown>,
  id: string,
  caller: Caller,
  lock: boolean,
  tagged: boolean,
  deleted: DeletedRows = 'exclude',
): Promise<Row> {
  const key = checkId(table, id);
  const query = visibleRows(db, table, caller, deleted).where(table.idColumn, key);
  if (lock) dialectFor(db).lockRows(query);
  const row = (await query.first()) as Row | undefined;
  if (!row) throw notFound(table.entityName, id);
  return tagged ? tagSourced(table, row) : row;
}

/**
 * The opening of every change of row `id` (a save, a delete, a restore): the row among those the
 * caller may reach (`deleted` says whether a soft-deleted one counts), locked until the
 * transaction `db` ends, with the caller's `If-Match` checked against its current tag (412): the
 * row's, with what its DTO nests read then when the table declares that DTO; 404 when there is no
 * such row.
 */
export async function openChange(
  db: Db,
  table: EntityTable<unknown>,
  id: string,
  caller: Caller,
  deleted: DeletedRows = 'exclude',
): Promise<Row> {
  const row = await findRow(db, table, id, caller, true, false, deleted);
  await checkPrecondition(db, table, id, row, caller);
  return row;
}

/** The entity of `id` (an instance of its class); a 404 problem when there is none. */
export async function loadEntity<E>(
  db: Db,
  table: EntityTable<E>,
  id: string,
  caller: Caller | string = '',
): Promise<E> {
  const any = table as EntityTable<unknown>;
  // The entity carries no tag: nothing sends it as it is.
  const entity = table.fromRow(await findRow(db, any, id, asCaller(caller), false, false));
  await loadLinks(db, any, entity as Row, checkId(any, id));
  return entity;
}

/**
 * The row of `id` as a write just stored it, tagged for its answer: the row the write statement
 * returned, or, where the database returns none (MySQL), read back in the write's transaction.
 */
async function storedRow(
  trx: Knex.Transaction,
  table: EntityTable<unknown>,
  id: string,
  caller: Caller,
  written: Row[] | undefined,
): Promise<Row> {
  const [row] = written ?? [];
  return row ? tagSourced(table, row) : findRow(trx, table, id, caller, false, true);
}

function idOf<E>(table: EntityTable<E>, entity: E): string {
  return String((entity as Row)[table.idProperty]);
}

export function eventsOf(table: EntityTable<unknown>): EntityEvents | undefined {
  if (table.events.length === 0) return undefined;
  return { entity: table.entityName, idField: table.idProperty, declarations: table.events };
}

/**
 * Inserts a new entity and answers with the stored row. Audited entities get `createdBy` and
 * `updatedBy` set to the caller's principal (empty when anonymous) and `createdOn` and `updatedOn`
 * to now: the first save is a save too. Owned entities get `ownedBy` = the principal, tenant
 * entities `tenantId` = the caller's tenant (403 `auth.tenant_required` without one). Declared
 * `Created` events are recorded in the same transaction, from the stored values.
 *
 * @example
 * const row = await insertEntity(knex, productTable, new Product('Desk', 120), callerOf(req));
 */
export async function insertEntity<E>(
  knex: Knex,
  table: EntityTable<E>,
  entity: E,
  caller: Caller | string,
): Promise<Row> {
  const who = asCaller(caller);
  const { principal } = who;
  const target = entity as Row;
  const any = table as EntityTable<unknown>;
  const [tenant] = tenantCondition(any, who);
  if (table.audited) {
    const now = new Date();
    target.createdBy = principal;
    target.createdOn = now;
    target.updatedBy = principal;
    target.updatedOn = now;
  }
  if (table.owned) target.ownedBy = principal;
  if (tenant) target.tenantId = tenant.equals;
  const values = table.toRow(entity);
  const id = idOf(table, entity);
  const references = { row: values, entity: target, caller: who };
  return refusingDuplicates(knex, any, id, values, who, () =>
    refusingBrokenReferences(knex, any, references, () =>
      transactionWithRetry(knex, async (trx) => {
        await checkReferences(trx, any, values, target, who);
        const written = await dialectFor(trx).writtenRows(trx(table.table).insert(values));
        await saveLinks(trx, any, target, id);
        const row = await storedRow(trx, any, id, who, written);
        const events = eventsOf(any);
        if (events) await recordEvents(trx, rowEvents(events, 'Created', any.fromRow(row) as Row));
        return row;
      }),
    ),
  );
}

/**
 * Loads the entity of `id` (among the rows of the caller's row scope), runs `change` on it and
 * saves it, in one transaction; answers with the stored row. The row stays locked from the load
 * to the commit, so concurrent changes of one row run one after the other and none is lost; the
 * caller's `If-Match`, when given, must match the row's entity tag (412 otherwise). Audited
 * entities get `updatedOn` and `updatedBy`: the principal, unless `change` recorded an updater
 * itself by setting `updatedBy` (as the spec's `Approve` does). Declared `Updated` events whose
 * fields changed are recorded in the same transaction; a change touching none of them raises
 * nothing.
 *
 * @example
 * const row = await changeEntity(knex, productTable, id, callerOf(req), (p) => p.changePrice(9.5));
 */
export async function changeEntity<E>(
  knex: Knex,
  table: EntityTable<E>,
  id: string,
  caller: Caller | string,
  change: (entity: E) => void | Promise<void>,
): Promise<Row> {
  const who = asCaller(caller);
  const any = table as EntityTable<unknown>;
  // What the save writes, for naming the unique group a refused write repeats.
  const values: Row = {};
  const changed: Row = {};
  const references = { row: values, entity: changed, caller: who };
  return refusingDuplicates(knex, any, id, values, who, () =>
    refusingBrokenReferences(knex, any, references, () =>
      transactionWithRetry(knex, async (trx) => {
        const stored = await openChange(trx, any, id, who);
        const entity = table.fromRow(stored);
        const target = entity as Row;
        const events = eventsOf(any);
        // The values before the change, for the events' `previous`, read from the row once.
        const before = events ? valuesBefore(any, target) : undefined;
        const links = await loadLinks(trx, any, target, checkId(any, id));
        // Cleared first, so an updater the method records is told apart from the stored one.
        if (table.audited) target.updatedBy = null;
        await change(entity);
        if (table.audited) {
          target.updatedOn = new Date();
          if (target.updatedBy === null || target.updatedBy === undefined) {
            target.updatedBy = who.principal;
          }
        }
        Object.assign(values, table.toRow(entity));
        Object.assign(changed, target);
        delete values[table.idColumn];
        // The owner and the tenant never change hands through a save.
        if (table.ownerColumn) delete values[table.ownerColumn];
        if (table.tenantColumn) delete values[table.tenantColumn];
        // Nor do the deletion marks: only a delete or a restore writes them.
        if (table.deletedColumn) for (const mark in deletionMarks(any)) delete values[mark];
        await checkReferences(trx, any, values, target, who, { row: stored, links });
        const written = await dialectFor(trx).writtenRows(
          visibleRows(trx, any, who).where(table.idColumn, checkId(any, id)).update(values),
        );
        await saveLinks(trx, any, target, checkId(any, id), links);
        const row = await storedRow(trx, any, id, who, written);
        if (events) {
          await recordEvents(trx, updatedEvents(events, before!, any.fromRow(row) as Row));
        }
        return row;
      }),
    ),
  );
}

/**
 * Deletes the row of `id` (among the rows of the caller's row scope); 404 when there is none,
 * 412 when the caller's `If-Match` does not match the row's entity tag. A soft-deleting table's
 * row is marked instead (`deletedOn`, `deletedBy`, `deletionId`), with the rows its cascade takes;
 * declared `Deleted` events are recorded in the same transaction.
 */
export async function deleteEntity(
  knex: Knex,
  table: EntityTable<unknown>,
  id: string,
  caller: Caller | string = '',
): Promise<void> {
  const who = asCaller(caller);
  const key = checkId(table, id);
  // Rows referring to it (restrict, cascade, setNull) are seen to in the same transaction.
  const rules = hasDeleteRules(table);
  const events = eventsOf(table);
  const deleting = events?.declarations.some((d) => d.operation === 'Deleted');
  if (who.ifMatch === undefined && !rules && !deleting && !table.deletedColumn) {
    const deleted = await retryOnConflict(async () =>
      visibleRows(knex, table, who).where(table.idColumn, key).delete(),
    );
    if (deleted === 0) throw notFound(table.entityName, id);
    return;
  }
  await refusingBrokenReferences(knex, table, { deleting: key }, () =>
    transactionWithRetry(knex, async (trx) => {
      const row = await openChange(trx, table, id, who);
      const soft = table.deletedColumn
        ? { deletedOn: new Date(), deletedBy: who.principal, deletionId: randomUUID() }
        : undefined;
      if (rules || soft) await applyDeleteRules(trx, table, [key], soft);
      const own = visibleRows(trx, table, who).where(table.idColumn, key);
      await (soft ? own.update(deletionMarks(table, soft)) : own.delete());
      if (deleting)
        await recordEvents(trx, rowEvents(events!, 'Deleted', table.fromRow(row) as Row));
    }),
  );
}
