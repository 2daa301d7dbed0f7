// Base copies: what the generator wrote for a slice last time, kept in the app under
// .slicekit/slices/<folder>/ and committed with it. The next run on the slice merges three ways
// against these files (base = this copy, theirs = the new rendering, ours = the app's file) and
// diffs the table against `schema.json`, the table as the slice's migrations left it.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { EntityModel } from '../model/types.js';
import { sliceBase } from '../entity/views/base.js';
import {
  migrationView,
  type Column,
  type LiveIndex,
  type TableIndex,
} from '../entity/views/migration.js';
import type { ForeignKey, JoinTable } from '../entity/views/foreign-keys.js';
import { formatFile } from '../entity/format.js';
import { sequenceOptions } from '../entity/views/sequences.js';

/** Where base copies live, relative to the app. */
export const BASE_ROOT = '.slicekit/slices';

/** The table a slice's migrations have made: what the next upgrade diffs against. */
export interface TableSnapshot {
  table: string;
  /** Columns in table order, as the create migration's view describes them. */
  columns: Column[];
  indexes: TableIndex[];
  /** The numbered columns and their sequences. */
  sequences: NumberedColumn[];
  /**
   * The foreign key of each reference column. Absent in a schema.json written before slicekit
   * recorded relations: `withRelations` then fills it in.
   */
  foreignKeys?: ForeignKey[];
  /** The join tables of the entity's many-to-manys (absent as `foreignKeys` may be). */
  joinTables?: JoinTable[];
  /** The columns of the search index (absent in a schema.json from before search indexes). */
  searchColumns?: string[];
  /** The unique column groups among live rows of a soft-deleting table (`liveUniqueMigration`). */
  liveUnique?: string[][];
  /**
   * The list indexes over live rows of a soft-deleting table (`liveIndexMigration`); absent where
   * there are none, and in a schema.json from before them (its list indexes are in `indexes`).
   */
  liveIndexes?: LiveIndex[];
}

/** A snapshot whose relations are known. */
export type FullSnapshot = TableSnapshot & { foreignKeys: ForeignKey[]; joinTables: JoinTable[] };

/** A column numbered on create by a sequence. */
export interface NumberedColumn {
  column: string;
  /** An integer column takes the number (`nextNumber`), a string one its rendered text. */
  integer: boolean;
  /** The `defineSequence` options. */
  options: Record<string, unknown>;
}

/** The base copy of one slice. */
export interface BaseCopy {
  schema: TableSnapshot;
  /** App-relative path (`/`-separated) to the text the generator wrote there. */
  files: Map<string, string>;
}

/** `.slicekit/slices/<folder>` under the app. */
export function baseDir(appDir: string, folder: string): string {
  return join(appDir, BASE_ROOT, folder);
}

/**
 * The table `model` describes, as its create migration would make it today (its foreign keys and
 * join tables need the model's relations resolved against the app).
 */
export function tableSnapshot(model: EntityModel): FullSnapshot {
  const view = migrationView(model, sliceBase(model), '');
  return {
    table: model.table,
    columns: view.columns,
    indexes: view.indexes,
    foreignKeys: view.foreignKeys,
    joinTables: view.joinTables,
    searchColumns: view.searchColumns,
    liveUnique: view.liveUnique,
    ...(view.liveIndexes.length ? { liveIndexes: view.liveIndexes } : {}),
    sequences: model.fields
      .filter((f) => f.sequence)
      .map((f) => ({
        column: f.column,
        integer: f.type === 'integer',
        options: sequenceOptions(f),
      })),
  };
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** The base copy of the slice in `folder`, or undefined when the app has none (an older app). */
export function readBase(appDir: string, folder: string): BaseCopy | undefined {
  const dir = baseDir(appDir, folder);
  const schemaFile = join(dir, 'schema.json');
  if (!existsSync(schemaFile)) return undefined;
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as TableSnapshot;
  const filesDir = join(dir, 'files');
  const files = new Map(
    walk(filesDir).map((file) => [
      relative(filesDir, file).split('\\').join('/'),
      readFileSync(file, 'utf8'),
    ]),
  );
  return { schema, files };
}

/** The generated files worth a base copy: not migrations (written once, never merged). */
export function keptInBase(path: string): boolean {
  return !path.startsWith('migrations/');
}

/**
 * Writes the base copy of a slice: `schema.json` and every file under `files/`, removing copies of
 * files the slice no longer has. Answers the paths it wrote or removed, relative to the app.
 */
export async function writeBase(
  appDir: string,
  folder: string,
  schema: TableSnapshot,
  files: ReadonlyMap<string, string>,
  options: { dryRun?: boolean } = {},
): Promise<string[]> {
  const dir = baseDir(appDir, folder);
  const changed: string[] = [];
  // A dry run only answers the paths it would write or remove.
  const put = (file: string, text: string) => {
    if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
    if (!options.dryRun) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    changed.push(relative(appDir, file).split('\\').join('/'));
  };
  const schemaFile = join(dir, 'schema.json');
  put(schemaFile, await formatFile(JSON.stringify(schema), schemaFile));
  const filesDir = join(dir, 'files');
  const wanted = new Set<string>();
  for (const [path, text] of files) {
    if (!keptInBase(path)) continue;
    wanted.add(join(filesDir, path));
    put(join(filesDir, path), text);
  }
  for (const file of walk(filesDir)) {
    if (wanted.has(file)) continue;
    if (!options.dryRun) rmSync(file);
    changed.push(relative(appDir, file).split('\\').join('/'));
  }
  return changed;
}
