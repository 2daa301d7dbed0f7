// The difference between two states of a slice's table (base copy and new spec), as schema
// changes, and the data each change may lose or refuse. Renames come only from the spec
// (`renamedFrom`), never guessed from a dropped and an added column of the same type. Relations
// are part of it: a reference column's foreign key, and the join table of a many-to-many.
import type { ForeignKey } from '../entity/views/foreign-keys.js';
import type { Column, TableIndex } from '../entity/views/migration.js';
import type { FullSnapshot, NumberedColumn } from './base.js';
import { diffJoinTables } from './diff-joins.js';
import {
  indexKey,
  type DataRisk,
  type DiffOptions,
  type SchemaChange,
  type TableDiff,
} from './changes.js';
import { ADDED_EMPTY, addedKind, alterRisks } from './diff-risks.js';
import { diffLiveIndexes, diffLiveUnique, diffSearch } from './diff-search.js';

const foreignKey = (key: ForeignKey) => `${key.column}>${key.table}:${key.onDelete}`;

const same = (a: Column, b: Column) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The changes turning the table `before` into `after`, in the order a migration applies them:
 * foreign keys and indexes of renamed or dropped columns first (by their old names), renames,
 * then added, changed and dropped columns, indexes, foreign keys, join tables and sequences.
 * Indexes and foreign keys are made again under a renamed column's name, so each keeps the name
 * Knex gives it and a later change finds it.
 *
 * @example
 * diffTables(base.schema, tableSnapshot(model), { renames: new Map(), fills: new Map() });
 */
export function diffTables(
  before: FullSnapshot,
  after: FullSnapshot,
  options: DiffOptions,
): TableDiff {
  // Each phase in migration order; `changes` is their concatenation.
  const unhookKeys: SchemaChange[] = [];
  const unhook: SchemaChange[] = [];
  const renames: SchemaChange[] = [];
  const columns: SchemaChange[] = [];
  const drops: SchemaChange[] = [];
  const indexes: SchemaChange[] = [];
  const dropIndexes: SchemaChange[] = [];
  const relations: SchemaChange[] = [];
  const sequences: SchemaChange[] = [];
  const risks: DataRisk[] = [];
  const old = new Map(before.columns.map((c) => [c.name, c]));
  const now = new Map(after.columns.map((c) => [c.name, c]));
  const references = new Set(after.foreignKeys.map((k) => k.column));
  // Old column name -> new one, for the renames this change makes.
  const renamed = new Map<string, string>();
  for (const [to, from] of options.renames) {
    if (old.has(from) && !now.has(from) && !old.has(to) && now.has(to)) renamed.set(from, to);
  }
  for (const [from, to] of renamed) {
    const column = old.get(from)!;
    renames.push({
      kind: 'rename',
      from,
      to,
      ...(column.method === 'enu' ? { enumValues: column.args[0] as string[] } : {}),
    });
  }
  const previous = (name: string): Column | undefined => {
    const from = [...renamed].find(([, to]) => to === name)?.[0];
    const column = old.get(from ?? name);
    return column && { ...column, name };
  };
  for (const column of after.columns) {
    const was = previous(column.name);
    if (!was) {
      columns.push({ kind: 'add', column });
      const numbered = after.sequences.some((s) => s.column === column.name);
      if (
        column.notNullable &&
        !column.hasDefault &&
        !options.fills.has(column.name) &&
        !numbered
      ) {
        risks.push({ column: column.name, ...ADDED_EMPTY[addedKind(column, references)] });
      }
    } else if (!same(was, column)) {
      columns.push({ kind: 'alter', before: was, after: column });
      risks.push(...alterRisks(was, column, options.fills, references.has(column.name)));
    }
  }
  for (const column of before.columns) {
    if (now.has(column.name) || renamed.has(column.name)) continue;
    drops.push({ kind: 'drop', column });
    risks.push({
      column: column.name,
      risk: before.foreignKeys.some((k) => k.column === column.name)
        ? 'is dropped: every row loses the row it refers to'
        : 'is dropped: every row loses its value',
      fix: 'keep the field, or copy its values elsewhere first',
    });
  }
  const moved = (c: string) => renamed.get(c) ?? c;
  const movedIndex = (index: TableIndex): TableIndex => ({
    ...index,
    columns: index.columns.map(moved),
  });
  // An index or foreign key on a renamed or dropped column goes first, under its old name; one
  // on a renamed column comes back under the new name right after the rename.
  const leaving = (columns: readonly string[]) => columns.some((c) => !now.has(c));
  const oldIndexes = new Map(before.indexes.map((i) => [indexKey(movedIndex(i)), i]));
  const newIndexes = new Map(after.indexes.map((i) => [indexKey(i), i]));
  for (const [key, index] of oldIndexes) {
    if (leaving(index.columns)) {
      unhook.push({ kind: 'dropIndex', index });
      if (newIndexes.has(key)) renames.push({ kind: 'addIndex', index: newIndexes.get(key)! });
    } else if (!newIndexes.has(key)) {
      dropIndexes.push({ kind: 'dropIndex', index });
    }
  }
  // New indexes before the dropped ones: a reference made unique keeps an index under its foreign
  // key throughout, which MySQL requires.
  for (const [key, index] of newIndexes) {
    if (!oldIndexes.has(key)) indexes.push({ kind: 'addIndex', index });
  }
  const oldKeys = new Map(
    before.foreignKeys.map((k) => [foreignKey({ ...k, column: moved(k.column) }), k]),
  );
  const newKeys = new Map(after.foreignKeys.map((k) => [foreignKey(k), k]));
  for (const [key, was] of oldKeys) {
    if (newKeys.has(key) && !leaving([was.column])) continue;
    unhookKeys.push({ kind: 'dropForeign', foreignKey: was });
    const is = after.foreignKeys.find((k) => k.column === moved(was.column));
    if (is && is.table !== was.table) {
      risks.push({
        column: is.column,
        risk: `refers to ${is.table} instead of ${was.table}: the ids the rows hold name rows of ${was.table}, so the migration fails on them`,
        fix: 'keep the entity it refers to, or add a new reference field and drop this one',
      });
    }
  }
  for (const [key, is] of newKeys) {
    const was = before.foreignKeys.find((k) => moved(k.column) === is.column);
    if (!oldKeys.has(key) || (was && leaving([was.column]))) {
      relations.push({ kind: 'addForeign', foreignKey: is });
    }
  }
  const joins = diffJoinTables(before.joinTables, after.joinTables, options.requiredLinks);
  relations.push(...joins.changes);
  risks.push(...joins.risks);
  const sequenceName = (s: NumberedColumn) => String(s.options['name']);
  const oldSequences = new Set(before.sequences.map(sequenceName));
  const newSequences = new Set(after.sequences.map(sequenceName));
  for (const sequence of before.sequences) {
    if (!newSequences.has(sequenceName(sequence)))
      sequences.push({ kind: 'dropSequence', sequence });
  }
  for (const sequence of after.sequences) {
    if (!oldSequences.has(sequenceName(sequence)))
      sequences.push({ kind: 'addSequence', sequence });
  }
  const altered = [...unhookKeys, ...unhook, ...renames, ...columns, ...drops, ...relations];
  const search = diffSearch(before, after, altered.length > 0);
  const live = diffLiveUnique(before, after, altered.length > 0);
  const lists = diffLiveIndexes(before, after, altered.length > 0);
  return {
    // A foreign key goes before its column's index: MySQL keeps the index while the key needs it.
    changes: [
      ...search.drop.map((i): SchemaChange => ({ kind: 'dropSearch', search: i })),
      ...live.drop.map((unique): SchemaChange => ({ kind: 'dropLiveUnique', unique })),
      ...lists.drop.map((i): SchemaChange => ({ kind: 'dropLiveIndex', live: i })),
      ...unhookKeys,
      ...unhook,
      ...renames,
      ...columns,
      ...drops,
      ...indexes,
      ...dropIndexes,
      ...relations,
      ...sequences,
      ...search.add.map((i): SchemaChange => ({ kind: 'addSearch', search: i })),
      ...live.add.map((unique): SchemaChange => ({ kind: 'addLiveUnique', unique })),
      ...lists.add.map((i): SchemaChange => ({ kind: 'addLiveIndex', live: i })),
    ],
    risks,
  };
}

/** The risk report, one line per column. */
export function describeRisks(risks: readonly DataRisk[]): string[] {
  return risks.map((r) => `${r.column} ${r.risk}. To proceed: ${r.fix}`);
}
