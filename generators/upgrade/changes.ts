// What the upgrade's diff (diff.ts, diff-joins.ts) finds between two states of a slice's table: the
// schema changes, the data they may lose or refuse, and the options the diff takes.
import type { ForeignKey, JoinTable } from '../entity/views/foreign-keys.js';
import type { Column, TableIndex } from '../entity/views/migration.js';
import type { NumberedColumn } from './base.js';
import type { LiveUnique, SearchIndex, TableLiveIndex } from './diff-search.js';

export type SchemaChange =
  | { kind: 'add'; column: Column; restore?: boolean }
  | { kind: 'drop'; column: Column }
  | { kind: 'rename'; from: string; to: string; enumValues?: string[] }
  | { kind: 'alter'; before: Column; after: Column }
  | { kind: 'addIndex'; index: TableIndex }
  | { kind: 'dropIndex'; index: TableIndex }
  | { kind: 'addSequence'; sequence: NumberedColumn }
  | { kind: 'dropSequence'; sequence: NumberedColumn }
  | { kind: 'addForeign'; foreignKey: ForeignKey }
  | { kind: 'dropForeign'; foreignKey: ForeignKey }
  | { kind: 'addJoinTable'; joinTable: JoinTable }
  | { kind: 'dropJoinTable'; joinTable: JoinTable }
  | { kind: 'addSearch'; search: SearchIndex }
  | { kind: 'dropSearch'; search: SearchIndex }
  | { kind: 'addLiveUnique'; unique: LiveUnique }
  | { kind: 'dropLiveUnique'; unique: LiveUnique }
  | { kind: 'addLiveIndex'; live: TableLiveIndex }
  | { kind: 'dropLiveIndex'; live: TableLiveIndex };

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
  /**
   * The join tables of the spec's required many-to-many fields, each to whether the field was
   * optional (or absent) in the earlier spec; `undefined` when the earlier spec is not known.
   */
  requiredLinks?: ReadonlyMap<string, boolean | undefined>;
}

/** What tells indexes apart: an exact unique text index is a schema.json's plain one from before. */
export const indexKey = (index: TableIndex) =>
  `${index.method}:${index.columns.join(',')}${index.text === 'ignoreCase' ? ':ignoreCase' : ''}`;
