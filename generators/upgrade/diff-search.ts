// The search index's part of a table's difference. The index covers the searched columns by name,
// and on SQLite triggers on the table keep it (lost when Knex rebuilds the table): it is dropped
// first and made again last when its columns change, and when the table's columns or keys change
// at all.
import type { FullSnapshot } from './base.js';

/** A table's search index: its searched text columns (`searchIndexMigration`). */
export interface SearchIndex {
  table: string;
  columns: string[];
}

/** The search index to drop (first) and to make (last); `altered`: the table changes. */
export function diffSearch(
  before: FullSnapshot,
  after: FullSnapshot,
  altered: boolean,
): { drop: SearchIndex[]; add: SearchIndex[] } {
  const was = before.searchColumns ?? [];
  const is = after.searchColumns ?? [];
  const changed = altered || was.join() !== is.join();
  return {
    drop: changed && was.length ? [{ table: before.table, columns: was }] : [],
    add: changed && is.length ? [{ table: after.table, columns: is }] : [],
  };
}
