// Schema changes as the steps of a migration, `up` and `down`: Knex `alterTable` blocks, the
// updates that give existing rows a value, PostgreSQL's enum check constraints, foreign keys,
// join tables and sequences. The migration template writes the steps as code; the dry run
// (sql.ts) runs the same steps.
import { inspect } from 'node:util';
import type { ForeignKey } from '../entity/views/foreign-keys.js';
import type { Column, TableIndex } from '../entity/views/migration.js';
import type { FullSnapshot, NumberedColumn } from './base.js';
import { indexKey, type SchemaChange } from './changes.js';
import { indexLabel, indexStep, liveLabel } from './index-steps.js';
import type { Line, MigrationSteps, Step } from './step-types.js';

export type { EnumChange, Line, MigrationSteps, Step, UniqueTextIndex } from './step-types.js';
export { indexLabel, liveLabel, uniqueTextIndex } from './index-steps.js';

const alter = (table: string, ...lines: Line[]): Step => ({ alterTable: { table, lines } });
const nullable = (column: Column): Column => ({ ...column, notNullable: false });
const checkName = (table: string, column: string) => `${table}_${column}_check`;

/** What a column was or becomes, in a comment: `nickname string(80), required`. */
function describe(column: Column): string {
  const args = column.method === 'enu' ? [(column.args[0] as string[]).join(' | ')] : column.args;
  const shown = args.map((arg) => (typeof arg === 'object' ? inspect(arg) : String(arg)));
  const type = `${column.method}${shown.length ? `(${shown.join(', ')})` : ''}`;
  const traits = [
    column.notNullable ? 'required' : 'optional',
    ...(column.hasDefault ? [`default ${JSON.stringify(column.defaultTo)}`] : []),
  ];
  return `${column.name} ${type}, ${traits.join(', ')}`;
}

/** The table as the steps leave it so far, for a rebuild. */
interface TableState {
  table: string;
  columns: Column[];
  indexes: TableIndex[];
  foreignKeys: ForeignKey[];
}

/** The steps making `column` what it is from what it was (either direction). */
function alterSteps(state: TableState, from: Column, to: Column, fill: unknown): Step[] {
  const { table } = state;
  const steps: Step[] = [];
  if (to.method === 'string' && from.method === 'string' && to.args[0]! < from.args[0]!) {
    steps.push({ cut: { table, column: to.name, length: to.args[0] as number } });
  }
  if (to.method === 'enu' && from.method === 'enu') {
    const kept = new Set(to.args[0] as string[]);
    const removed = (from.args[0] as string[]).filter((v) => !kept.has(v));
    if (removed.length) {
      const value = to.hasDefault ? to.defaultTo : null;
      steps.push({ fill: { table, column: to.name, value, values: removed } });
    }
  }
  if (to.notNullable && !from.notNullable) {
    const value = to.hasDefault ? to.defaultTo : fill;
    if (value !== undefined) steps.push({ fill: { table, column: to.name, value } });
  }
  state.columns = state.columns.map((c) => (c.name === to.name ? to : c));
  if (to.method !== 'enu') return [...steps, alter(table, { alter: to })];
  return [
    ...steps,
    {
      enumChange: {
        table,
        column: to,
        constraint: checkName(table, to.name),
        values: to.args[0] as string[],
        rebuild: {
          columns: [...state.columns],
          indexes: [...state.indexes],
          foreignKeys: [...state.foreignKeys],
        },
      },
    },
  ];
}

/** The steps adding `column`, giving the table's rows a value where it is required. */
function addSteps(
  state: TableState,
  column: Column,
  fill: unknown,
  numbered: NumberedColumn | undefined,
): Step[] {
  const { table } = state;
  state.columns = [...state.columns, column];
  const order = state.columns.some((c) => c.name === 'created_on') ? ['created_on', 'id'] : ['id'];
  if (numbered) {
    const { options, integer } = numbered;
    return [
      alter(table, { add: nullable(column) }),
      { sequence: { options, up: true } },
      { number: { table, column: column.name, options, integer, order } },
      alter(table, { alter: column }),
    ];
  }
  if (column.notNullable && !column.hasDefault) {
    // Added empty, given a value where there is one, then made required: on a table with rows
    // and no value for them the last step fails alike on every database (SQLite cannot add a
    // NOT NULL column without a default at all, MySQL would fill it with '').
    return [
      alter(table, { add: nullable(column) }),
      ...(fill === undefined ? [] : [{ fill: { table, column: column.name, value: fill } }]),
      ...alterSteps(state, nullable(column), column, undefined),
    ];
  }
  return [alter(table, { add: column })];
}

/** A change run backwards: what `down` does for it. */
function inverse(change: SchemaChange): SchemaChange {
  switch (change.kind) {
    case 'add':
      return { kind: 'drop', column: change.column };
    case 'drop':
      return { kind: 'add', column: change.column, restore: true };
    case 'rename':
      return { ...change, from: change.to, to: change.from };
    case 'alter':
      return { kind: 'alter', before: change.after, after: change.before };
    case 'addIndex':
      return { kind: 'dropIndex', index: change.index };
    case 'dropIndex':
      return { kind: 'addIndex', index: change.index };
    case 'addSequence':
      return { kind: 'dropSequence', sequence: change.sequence };
    case 'dropSequence':
      return { kind: 'addSequence', sequence: change.sequence };
    case 'addForeign':
      return { kind: 'dropForeign', foreignKey: change.foreignKey };
    case 'dropForeign':
      return { kind: 'addForeign', foreignKey: change.foreignKey };
    case 'addJoinTable':
      return { kind: 'dropJoinTable', joinTable: change.joinTable };
    case 'dropJoinTable':
      return { kind: 'addJoinTable', joinTable: change.joinTable };
    case 'addSearch':
      return { kind: 'dropSearch', search: change.search };
    case 'dropSearch':
      return { kind: 'addSearch', search: change.search };
    case 'addLiveUnique':
      return { kind: 'dropLiveUnique', unique: change.unique };
    case 'dropLiveUnique':
      return { kind: 'addLiveUnique', unique: change.unique };
    case 'addLiveIndex':
      return { kind: 'dropLiveIndex', live: change.live };
    case 'dropLiveIndex':
      return { kind: 'addLiveIndex', live: change.live };
  }
}

const sameKey = (a: ForeignKey, b: ForeignKey) => a.column === b.column;

/** The steps of `changes`, applied in order to the table `start`. */
function forward(
  changes: readonly SchemaChange[],
  start: FullSnapshot,
  target: FullSnapshot,
  fills: ReadonlyMap<string, unknown>,
  comments: boolean,
): Step[] {
  const state: TableState = {
    table: target.table,
    columns: [...start.columns],
    indexes: [...start.indexes],
    foreignKeys: [...start.foreignKeys],
  };
  const { table } = state;
  const added = new Set(changes.flatMap((c) => (c.kind === 'add' ? [c.column.name] : [])));
  const steps: Step[] = [];
  const note = (comment: string) => comments && steps.push({ comment });
  for (const change of changes) {
    switch (change.kind) {
      case 'rename': {
        const { from, to, enumValues } = change;
        note(`${from} renamed to ${to}`);
        steps.push(alter(table, { rename: { from, to } }));
        if (enumValues) {
          steps.push({
            renameCheck: { table, from: checkName(table, from), to: checkName(table, to) },
          });
        }
        state.columns = state.columns.map((c) => (c.name === from ? { ...c, name: to } : c));
        break;
      }
      case 'add': {
        note(`added: ${describe(change.column)}`);
        // A restored column's values are gone: it comes back nullable unless it has a default.
        const column =
          change.restore && change.column.notNullable && !change.column.hasDefault
            ? nullable(change.column)
            : change.column;
        const numbered = change.restore
          ? undefined
          : target.sequences.find((s) => s.column === column.name);
        steps.push(...addSteps(state, column, fills.get(column.name), numbered));
        break;
      }
      case 'alter':
        note(`changed: ${describe(change.before)} -> ${describe(change.after)}`);
        steps.push(...alterSteps(state, change.before, change.after, fills.get(change.after.name)));
        break;
      case 'drop':
        note(`dropped: ${describe(change.column)}`);
        steps.push(alter(table, { drop: change.column.name }));
        state.columns = state.columns.filter((c) => c.name !== change.column.name);
        state.indexes = state.indexes.filter((i) => !i.columns.includes(change.column.name));
        break;
      case 'addIndex':
        note(`index: ${indexLabel(change.index)}`);
        steps.push(indexStep(table, change.index, true));
        state.indexes = [...state.indexes, change.index];
        break;
      case 'dropIndex':
        note(`index dropped: ${indexLabel(change.index)}`);
        steps.push(indexStep(table, change.index, false));
        state.indexes = state.indexes.filter((i) => indexKey(i) !== indexKey(change.index));
        break;
      case 'addSequence':
        // A numbered column added in this change creates its sequence itself.
        if (!added.has(change.sequence.column)) {
          steps.push({ sequence: { options: change.sequence.options, up: true } });
        }
        break;
      case 'dropSequence':
        steps.push({ sequence: { options: change.sequence.options, up: false } });
        break;
      case 'addForeign': {
        const key = change.foreignKey;
        note(`foreign key: ${key.column} -> ${key.table}.id, on delete ${key.onDelete}`);
        steps.push(alter(table, { foreign: key }));
        state.foreignKeys = [...state.foreignKeys, key];
        break;
      }
      case 'dropForeign': {
        const key = change.foreignKey;
        note(`foreign key dropped: ${key.column} -> ${key.table}.id`);
        steps.push(alter(table, { dropForeign: key }));
        state.foreignKeys = state.foreignKeys.filter((k) => !sameKey(k, key));
        break;
      }
      case 'addJoinTable':
        note(`many-to-many: join table ${change.joinTable.table}`);
        steps.push({ createJoinTable: change.joinTable });
        break;
      case 'dropJoinTable':
        note(`many-to-many dropped: join table ${change.joinTable.table}`);
        steps.push({ dropTable: change.joinTable.table });
        break;
      case 'addSearch':
        note(`search index: ${change.search.columns.join(', ')}`);
        steps.push({ searchIndex: { ...change.search, up: true } });
        break;
      case 'dropSearch':
        note(`search index dropped: ${change.search.columns.join(', ')}`);
        steps.push({ searchIndex: { ...change.search, up: false } });
        break;
      case 'addLiveUnique':
        note(`unique among live rows: ${change.unique.columns.join(', ')}`);
        steps.push({ liveUnique: { ...change.unique, up: true } });
        break;
      case 'dropLiveUnique':
        note(`unique among live rows dropped: ${change.unique.columns.join(', ')}`);
        steps.push({ liveUnique: { ...change.unique, up: false } });
        break;
      case 'addLiveIndex':
        note(`index over live rows: ${liveLabel(change.live)}`);
        steps.push({ liveIndex: { ...change.live, up: true } });
        break;
      case 'dropLiveIndex':
        note(`index over live rows dropped: ${liveLabel(change.live)}`);
        steps.push({ liveIndex: { ...change.live, up: false } });
        break;
    }
  }
  return steps;
}

/**
 * The `up` and `down` steps of `changes`, which turn the table `before` into `after`. `fills`
 * gives the value existing rows take in a column that becomes required (the field's default).
 *
 * @example
 * const { up, down } = migrationSteps(diff.changes, base.schema, tableSnapshot(model), fills);
 */
export function migrationSteps(
  changes: readonly SchemaChange[],
  before: FullSnapshot,
  after: FullSnapshot,
  fills: ReadonlyMap<string, unknown>,
): MigrationSteps {
  return {
    up: forward(changes, before, after, fills, true),
    down: forward([...changes].reverse().map(inverse), after, before, new Map(), false),
  };
}
