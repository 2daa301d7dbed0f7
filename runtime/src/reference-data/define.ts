// Declaring the fixed rows of a table, identified by a natural key.
import { ReferenceDataError } from './errors.js';

export type ReferenceRow = Record<string, unknown>;

export interface ReferenceDataSet<Row extends ReferenceRow = ReferenceRow> {
  /** Table the rows belong to; it must exist (its migration runs first). */
  table: string;
  /**
   * Natural key column(s) identifying a row, for example `code`. The table needs a primary key
   * or unique index on exactly these columns. Key values should be strings or integers.
   */
  key: string | readonly string[];
  /** The rows, each with every key column set. */
  rows: readonly Row[];
}

/** The key columns of a set as an array. */
export function keyColumns(set: ReferenceDataSet): readonly string[] {
  return typeof set.key === 'string' ? [set.key] : set.key;
}

/** A row's key as one comparable string; equal keys read back from any database compare equal. */
export function keyOf(row: ReferenceRow, columns: readonly string[]): string {
  return JSON.stringify(columns.map((column) => String(row[column])));
}

/**
 * Checks a declaration once, where it is written: a key is named, every row has it, and no two
 * rows share it.
 *
 * @example
 * export const currencies = defineReferenceData({
 *   table: 'currencies',
 *   key: 'code',
 *   rows: [{ code: 'EUR', name: 'Euro' }, { code: 'USD', name: 'US dollar' }],
 * });
 */
export function defineReferenceData<Row extends ReferenceRow>(
  set: ReferenceDataSet<Row>,
): ReferenceDataSet<Row> {
  const columns = keyColumns(set);
  const problems: string[] = [];
  if (!set.table) problems.push('table is required');
  if (columns.length === 0) problems.push('key must name at least one column');
  const seen = new Set<string>();
  set.rows.forEach((row, index) => {
    const missing = columns.filter((column) => row[column] === undefined || row[column] === null);
    if (missing.length > 0) problems.push(`rows[${index}] has no ${missing.join(', ')}`);
    const key = keyOf(row, columns);
    if (seen.has(key)) problems.push(`rows[${index}] repeats the key ${key}`);
    seen.add(key);
  });
  if (problems.length > 0) {
    throw new ReferenceDataError(
      'reference_data_invalid',
      set.table,
      `reference data for ${set.table}: ${problems.join('; ')}`,
    );
  }
  return set;
}
