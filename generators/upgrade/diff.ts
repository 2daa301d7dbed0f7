// The difference between two states of a slice's table (base copy and new spec), as schema
// changes, and the data each change may lose or refuse. Renames come only from the spec
// (`renamedFrom`), never guessed from a dropped and an added column of the same type.
import type { Column, TableIndex } from '../entity/views/migration.js';
import type { NumberedColumn, TableSnapshot } from './base.js';

export type SchemaChange =
  | { kind: 'add'; column: Column; restore?: boolean }
  | { kind: 'drop'; column: Column }
  | { kind: 'rename'; from: string; to: string; enumValues?: string[] }
  | { kind: 'alter'; before: Column; after: Column }
  | { kind: 'addIndex'; index: TableIndex }
  | { kind: 'dropIndex'; index: TableIndex }
  | { kind: 'addSequence'; sequence: NumberedColumn }
  | { kind: 'dropSequence'; sequence: NumberedColumn };

/** Data a change may lose (or a migration refuse), and how to proceed. */
export interface DataRisk {
  column: string;
  risk: string;
  fix: string;
}

export interface TableDiff {
  changes: SchemaChange[];
  risks: DataRisk[];
}

/** Options of the diff: renames and the values existing rows take for a new required column. */
export interface DiffOptions {
  /** New column name to the old one it was (from `renamedFrom` in the spec). */
  renames: ReadonlyMap<string, string>;
  /** A value for existing rows, per column: the field's default, when it has one. */
  fills: ReadonlyMap<string, unknown>;
}

const indexKey = (index: TableIndex) => `${index.method}:${index.columns.join(',')}`;

/** Widening a column's type never loses a value. */
const WIDENINGS = new Set(['string>text']);

/** `decimal(p, s)` digits before and after the point. */
function digits(column: Column): { whole: number; scale: number } {
  const [precision = 12, scale = 2] = column.args as number[];
  return { whole: precision - scale, scale };
}

/** Why changing `before` into `after` may lose or refuse data, if it may. */
function alterRisks(before: Column, after: Column, fills: DiffOptions['fills']): DataRisk[] {
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
    at(
      'becomes required without a default: rows without a value make the migration fail',
      'give the field a default (existing rows without a value take it), or fill them first',
    );
  }
  return risks;
}

const same = (a: Column, b: Column) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The changes turning the table `before` into `after`, in the order a migration applies them:
 * renames, then added, changed and dropped columns, then indexes and sequences.
 *
 * @example
 * diffTables(base.schema, tableSnapshot(model), { renames: new Map(), fills: new Map() });
 */
export function diffTables(
  before: TableSnapshot,
  after: TableSnapshot,
  options: DiffOptions,
): TableDiff {
  const changes: SchemaChange[] = [];
  const risks: DataRisk[] = [];
  const old = new Map(before.columns.map((c) => [c.name, c]));
  const now = new Map(after.columns.map((c) => [c.name, c]));
  // Old column name -> new one, for the renames this change makes.
  const renamed = new Map<string, string>();
  for (const [to, from] of options.renames) {
    if (old.has(from) && !now.has(from) && !old.has(to) && now.has(to)) renamed.set(from, to);
  }
  for (const [from, to] of renamed) {
    const column = old.get(from)!;
    changes.push({
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
      changes.push({ kind: 'add', column });
      const numbered = after.sequences.some((s) => s.column === column.name);
      if (
        column.notNullable &&
        !column.hasDefault &&
        !options.fills.has(column.name) &&
        !numbered
      ) {
        risks.push({
          column: column.name,
          risk: 'is added as required without a default: the rows the table holds have no value for it',
          fix: 'give the field a default (existing rows take it), or make it optional',
        });
      }
    } else if (!same(was, column)) {
      changes.push({ kind: 'alter', before: was, after: column });
      risks.push(...alterRisks(was, column, options.fills));
    }
  }
  for (const column of before.columns) {
    if (now.has(column.name) || renamed.has(column.name)) continue;
    changes.push({ kind: 'drop', column });
    risks.push({
      column: column.name,
      risk: 'is dropped: every row loses its value',
      fix: 'keep the field, or copy its values elsewhere first',
    });
  }
  const movedIndex = (index: TableIndex): TableIndex => ({
    ...index,
    columns: index.columns.map((c) => renamed.get(c) ?? c),
  });
  const oldIndexes = new Map(before.indexes.map(movedIndex).map((i) => [indexKey(i), i]));
  const newIndexes = new Map(after.indexes.map((i) => [indexKey(i), i]));
  for (const [key, index] of oldIndexes) {
    // An index on a dropped column goes with it.
    if (!newIndexes.has(key) && index.columns.every((c) => now.has(c))) {
      changes.push({ kind: 'dropIndex', index });
    }
  }
  for (const [key, index] of newIndexes) {
    if (!oldIndexes.has(key)) changes.push({ kind: 'addIndex', index });
  }
  const sequenceName = (s: NumberedColumn) => String(s.options['name']);
  const oldSequences = new Set(before.sequences.map(sequenceName));
  const newSequences = new Set(after.sequences.map(sequenceName));
  for (const sequence of before.sequences) {
    if (!newSequences.has(sequenceName(sequence))) changes.push({ kind: 'dropSequence', sequence });
  }
  for (const sequence of after.sequences) {
    if (!oldSequences.has(sequenceName(sequence))) changes.push({ kind: 'addSequence', sequence });
  }
  return { changes, risks };
}

/** The risk report, one line per column. */
export function describeRisks(risks: readonly DataRisk[]): string[] {
  return risks.map((r) => `${r.column} ${r.risk}. To proceed: ${r.fix}`);
}
