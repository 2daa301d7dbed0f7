// A unique index refused a row: which of the table's declared unique groups the row repeats,
// answered as 409 problem+json naming its properties, never a 500 from the database.
import type { Knex } from 'knex';
import { ProblemError, problemKinds } from '../http/index.js';
import { dialectFor, isDatabaseError } from '../sql/index.js';
import type { Caller } from './caller.js';
import { liveRowsOnly, scopeRows, tenantCondition } from './row-scope.js';
import type { EntityTable } from './table.js';

export const DUPLICATE_TYPE = problemKinds['crud.duplicate'].type;

type Row = Record<string, unknown>;

/**
 * Whether the database refused a write because a unique index already holds its values:
 * PostgreSQL 23505, MySQL/MariaDB ER_DUP_ENTRY (1062), SQLite SQLITE_CONSTRAINT_UNIQUE.
 */
export function isUniqueViolation(error: unknown): boolean {
  return isDatabaseError('unique', error);
}

/**
 * The 409 problem for `row` (the columns a write tried to store) refused by a unique index: the
 * first declared group another row already holds (`heldGroup`), or the table's groups when none
 * can be told (the other row went away since). Looked up outside the failed transaction, which
 * PostgreSQL has aborted.
 */
export async function duplicateProblem(
  knex: Knex,
  table: EntityTable<unknown>,
  row: Row,
  id: string,
  caller: Caller | string = '',
): Promise<ProblemError> {
  const fields = await heldGroup(knex, table, row, id, caller);
  return duplicate(table, fields ?? table.unique.flatMap((group) => group.map((f) => f.property)));
}

/**
 * The properties of the first unique group of `table` whose values in `row` a live row other
 * than `id` already holds (of the caller's tenant, for a tenant table, whose unique indexes hold
 * each value once per tenant), or undefined when none does.
 */
export async function heldGroup(
  knex: Knex,
  table: EntityTable<unknown>,
  row: Row,
  id: string,
  caller: Caller | string = '',
): Promise<string[] | undefined> {
  const tenant = tenantCondition(table, caller);
  const dialect = dialectFor(knex);
  for (const group of table.unique) {
    // A soft-deleted row holds its values without holding them against the live rows.
    const scoped = scopeRows(knex(table.table), table, caller, tenant);
    const query = liveRowsOnly(scoped, table).whereNot(table.idColumn, id);
    for (const field of group) {
      const value = row[field.column];
      // Text as its index compares it (exactly, or ignoring case); other values as they are.
      if (typeof value === 'string') {
        const ignoreCase = table.ignoreCase.has(field.property);
        dialect.uniqueText.whereSame(query, field.column, value, ignoreCase);
      } else query.where(field.column, value as Knex.Value);
    }
    if (await query.first()) return group.map((f) => f.property);
  }
  return undefined;
}

/** The 409 problem of `fields` of `table` held by another row; `detail` says more when given. */
export function duplicate(
  table: EntityTable<unknown>,
  fields: readonly string[],
  detail?: string,
): ProblemError {
  const named = fields.length > 0 ? fields.join(' and ') : 'a unique value';
  return ProblemError.of(
    'crud.duplicate',
    detail ?? `another ${table.entityName} already has this ${named}; choose another`,
    { fields },
  );
}

/**
 * Runs `write` (an insert or a save of the row `id`, storing `row`'s columns) and answers a unique
 * index's refusal as the 409 problem of `duplicateProblem`; any other failure is rethrown.
 */
export async function refusingDuplicates<T>(
  knex: Knex,
  table: EntityTable<unknown>,
  id: string,
  row: Row,
  caller: Caller | string,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw await duplicateProblem(knex, table, row, id, caller);
  }
}
