// The search index's part of a table's difference, and that of the unique indexes over live rows
// (soft delete). The search index covers the searched columns by name, and on SQLite triggers on
// the table keep it (lost when Knex rebuilds the table): it is dropped first and made again last
// when its columns change, and when the table's columns or keys change at all. A live unique index
// is a partial index Knex does not know (also lost in a rebuild): dropped first and made last the
// same way, so switching soft delete on drops the plain unique index before making its own. The
// list indexes over live rows are partial indexes too, and go the same way.
import type { LiveIndex } from '../entity/views/migration.js';
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

/** A unique index over the live rows of a soft-deleting table (`liveUniqueMigration`). */
export interface LiveUnique {
  table: string;
  columns: string[];
}

/** The live unique indexes to drop (first) and to make (last); `altered`: the table changes. */
export function diffLiveUnique(
  before: FullSnapshot,
  after: FullSnapshot,
  altered: boolean,
): { drop: LiveUnique[]; add: LiveUnique[] } {
  const was = (before.liveUnique ?? []).map((columns) => columns.join());
  const is = (after.liveUnique ?? []).map((columns) => columns.join());
  const kept = (key: string) => !altered && was.includes(key) && is.includes(key);
  return {
    drop: (before.liveUnique ?? [])
      .filter((columns) => !kept(columns.join()))
      .map((columns) => ({ table: before.table, columns })),
    add: (after.liveUnique ?? [])
      .filter((columns) => !kept(columns.join()))
      .map((columns) => ({ table: after.table, columns })),
  };
}

/** A list index over the live rows of a soft-deleting table (`liveIndexMigration`). */
export type TableLiveIndex = LiveIndex & { table: string };

/** The live list indexes to drop (first) and to make (last); `altered`: the table changes. */
export function diffLiveIndexes(
  before: FullSnapshot,
  after: FullSnapshot,
  altered: boolean,
): { drop: TableLiveIndex[]; add: TableLiveIndex[] } {
  const key = (i: LiveIndex) => `${i.scope.join()}|${i.columns.join()}`;
  const was = (before.liveIndexes ?? []).map(key);
  const is = (after.liveIndexes ?? []).map(key);
  const kept = (i: LiveIndex) => !altered && was.includes(key(i)) && is.includes(key(i));
  return {
    drop: (before.liveIndexes ?? [])
      .filter((i) => !kept(i))
      .map((i) => ({ table: before.table, ...i })),
    add: (after.liveIndexes ?? [])
      .filter((i) => !kept(i))
      .map((i) => ({ table: after.table, ...i })),
  };
}
