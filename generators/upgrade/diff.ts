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
import { diffLiveUnique, diffSearch } from './diff-search.js';

const foreignKey = (key: ForeignKey) => `${key.column}>${key.table}:${key.onDelete}`;

/** Widening a column's type never loses a value. */
const WIDENINGS = new Set(['string>text']);

/** `decimal(p, s)` digits before and after the point. */
function digits(column: Column): { whole: number; scale: number } {
  const [precision = 12, scale = 2] = column.args as number[];
  return { whole: precision - scale, scale };
}

/** Why changing `before` into `after` may lose or refuse data, if it may. */
function alterRisks(
  before: Column,
  after: Column,
  fills: DiffOptions['fills'],
  reference: boolean,
): DataRisk[] {
  const risks: DataRisk[] = [];
  const at = (risk: string, fix: string) => risks.push({ column: after.name, risk, fix });
  if (before.method !== after.method) {
    if (!WIDENINGS.has(`${before.method}>${after.method}`)) {
      at(
        `its type changes from ${before.method} to ${after.method}: values that do not convert make the migration fail or are cut`,
        'keep the type, or add a new field and copy the values in a migration of your own',
      );
    }
  } else if (after.method === 'string') {
    const [was, is] = [before.args[0] as number, after.args[0] as number];
    if (is < was) {
      at(
        `maxLength narrows from ${was} to ${is}: longer values are cut to ${is} characters`,
        `keep maxLength at ${was} or more`,
      );
    }
  } else if (after.method === 'decimal') {
    const [was, is] = [digits(before), digits(after)];
    if (is.whole < was.whole || is.scale < was.scale) {
      at(
        `decimal(${before.args.join(', ')}) narrows to decimal(${after.args.join(', ')}): values outside it are rounded or make the migration fail`,
        'keep the precision and scale, or widen them',
      );
    }
  } else if (after.method === 'enu') {
    const kept = new Set(after.args[0] as string[]);
    const removed = (before.args[0] as string[]).filter((v) => !kept.has(v));
    if (removed.length) {
      const to = after.hasDefault ? JSON.stringify(after.defaultTo) : 'null';
      at(
        `values ${removed.map((v) => JSON.stringify(v)).join(', ')} are removed: rows holding them are set to ${to}`,
        'keep the values, or move the rows to another value first',
      );
    }
  }
  if (after.notNullable && !before.notNullable && !after.hasDefault && !fills.has(after.name)) {
    if (reference) {
      at(
        'becomes a required reference: rows referring to no row make the migration fail',
        'give each row its reference first, then accept',
      );
    } else {
      at(
        'becomes required without a default: rows without a value make the migration fail',
        'give the field a default (existing rows without a value take it), or fill them first',
      );
    }
  }
  return risks;
}

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
        risks.push(
          references.has(column.name)
            ? {
                column: column.name,
                risk: 'is added as a required reference: the rows the table holds refer to no row, so the migration fails unless the table is empty',
                fix: 'add the reference optional (required: false), give each row its reference, then make it required in a later upgrade',
              }
            : {
                column: column.name,
                risk: 'is added as required without a default: the rows the table holds have no value for it',
                fix: 'give the field a default (existing rows take it), or make it optional',
              },
        );
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
  return {
    // A foreign key goes before its column's index: MySQL keeps the index while the key needs it.
    changes: [
      ...search.drop.map((i): SchemaChange => ({ kind: 'dropSearch', search: i })),
      ...live.drop.map((unique): SchemaChange => ({ kind: 'dropLiveUnique', unique })),
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
    ],
    risks,
  };
}

/** The risk report, one line per column. */
export function describeRisks(risks: readonly DataRisk[]): string[] {
  return risks.map((r) => `${r.column} ${r.risk}. To proceed: ${r.fix}`);
}
