// Applying reference data: insert the declared rows that are absent, never touch present ones.
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import {
  defineReferenceData,
  keyColumns,
  keyOf,
  type ReferenceDataSet,
  type ReferenceRow,
} from './define.js';
import { ReferenceDataError } from './errors.js';

export interface ReferenceDataReport {
  /** Per table, in the order applied. */
  tables: { table: string; inserted: number; kept: number }[];
  /** Declared rows that were absent and are now inserted. */
  inserted: number;
  /** Declared rows whose key was present: left exactly as they are. */
  kept: number;
}

export interface ApplyReferenceDataOptions {
  /** Receives one info line per table that got rows. @default undefined (silent) */
  logger?: { info(obj: unknown, msg?: string): void };
}

function isMissingUniqueIndex(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  // PostgreSQL 42P10; SQLite has no code of its own for it, only the message.
  return code === '42P10' || /ON CONFLICT clause does not match/i.test(message ?? '');
}

async function applySet(trx: Knex.Transaction, set: ReferenceDataSet) {
  const columns = keyColumns(set);
  const keys = set.rows.map((row) => columns.map((column) => row[column]));
  const present = new Set<string>();
  // Batches keep the bound parameter count under SQLite's and MySQL's limits.
  for (let i = 0; i < keys.length; i += 500) {
    const slice = keys.slice(i, i + 500);
    const query = trx(set.table).select(columns as string[]);
    const found: ReferenceRow[] =
      columns.length === 1
        ? await query.whereIn(columns[0] as string, slice.map((k) => k[0]) as Knex.Value[])
        : await query.whereIn(columns as string[], slice as Knex.Value[][]);
    for (const row of found) present.add(keyOf(row, columns));
  }
  const absent = set.rows.filter((row) => !present.has(keyOf(row, columns)));
  if (absent.length > 0) {
    // A second process applying the same rows at the same moment meets the unique index and is
    // told to do nothing, so neither fails nor duplicates (each dialect spells "do nothing").
    const insert = trx(set.table)
      .insert(absent as ReferenceRow[])
      .onConflict(columns as string[]);
    try {
      await dialectFor(trx).insertMissing(insert, columns[0] as string);
    } catch (error) {
      if (!isMissingUniqueIndex(error)) throw error;
      throw new ReferenceDataError(
        'reference_data_key_not_unique',
        set.table,
        `reference data for ${set.table}: the table needs a primary key or unique index on (${columns.join(', ')})`,
        { cause: error },
      );
    }
  }
  return { table: set.table, inserted: absent.length, kept: set.rows.length - absent.length };
}

/**
 * Inserts every declared row whose key is absent, in one transaction, table by table in the
 * order given (parents before children). Rows already present are never updated, whatever the
 * declaration now says, so users' edits survive; a declared row a user deleted comes back.
 *
 * @example
 * await applyReferenceData(knex, [currencies, countries]);
 */
export async function applyReferenceData(
  knex: Knex,
  sets: readonly ReferenceDataSet[],
  options: ApplyReferenceDataOptions = {},
): Promise<ReferenceDataReport> {
  for (const set of sets) defineReferenceData(set);
  const tables = await knex.transaction(async (trx) => {
    const results: ReferenceDataReport['tables'] = [];
    for (const set of sets) results.push(await applySet(trx, set));
    return results;
  });
  for (const t of tables) {
    if (t.inserted > 0)
      options.logger?.info(t, `reference data: ${t.inserted} row(s) added to ${t.table}`);
  }
  return {
    tables,
    inserted: tables.reduce((n, t) => n + t.inserted, 0),
    kept: tables.reduce((n, t) => n + t.kept, 0),
  };
}
