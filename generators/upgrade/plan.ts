// What an upgrade will do, computed before anything is written: the table's changes (and the
// data they put at risk), the ALTER migration's steps, and each file's merge outcome.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodePlopAPI } from 'plop';
import { savedSpecPath, type AppModel } from '../model/app.js';
import { EntitySpecError } from '../model/errors.js';
import { parseSpecText } from '../model/load.js';
import { idPropertyOf } from '../model/references.js';
import { resolveRelations } from '../model/relations.js';
import { resolveSpec } from '../model/resolve.js';
import type { EntityModel, EntitySpec } from '../model/types.js';
import { snakeCase } from '../names.js';
import { readBase, tableSnapshot, type FullSnapshot, type TableSnapshot } from './base.js';
import type { DataRisk, SchemaChange } from './changes.js';
import { diffTables } from './diff.js';
import { mergeFile, type FileOutcome } from './merge.js';
import { renderSlice } from './render.js';
import { migrationSteps, type MigrationSteps } from './steps.js';

/** Where the upgrade's base comes from. */
export interface UpgradeBase {
  /** The table as the slice's migrations left it. */
  schema: FullSnapshot;
  /** Files as last generated; for an app without base copies, rendered from `model`. */
  files?: Map<string, string>;
  /** An app without base copies: the earlier spec the base is rendered from. */
  model?: EntityModel;
  specText?: string;
  /** Said to the user when the app had no base copy. */
  note?: string;
}

/** The schema half of the plan: known before any file is rendered. */
export interface SchemaPlan {
  before: FullSnapshot;
  after: FullSnapshot;
  changes: SchemaChange[];
  risks: DataRisk[];
  steps: MigrationSteps;
}

/**
 * `fields.<name>.renamedFrom` of a spec's text, as new column -> old column (a reference's
 * column is its id's: `client` renamed from `customer` is `client_id` from `customer_id`).
 */
export function renamesOf(specText: string): Map<string, string> {
  const spec = parseSpecText(specText, 'the spec') as Partial<EntitySpec>;
  const renames = new Map<string, string>();
  for (const [name, field] of Object.entries(spec.fields ?? {})) {
    // A many-to-many has no column: renamed, its join table is another (diffTables says so).
    if (!field?.renamedFrom || field.many === true) continue;
    const column = (n: string) =>
      snakeCase(field.type === 'reference' ? idPropertyOf(n, false) : n);
    renames.set(column(name), column(field.renamedFrom));
  }
  return renames;
}

/** The values existing rows take in a column that becomes required: each field's default. */
function fillsOf(model: EntityModel): Map<string, unknown> {
  return new Map(
    model.fields
      .filter((f) => f.role === 'field' && f.hasDefault && f.default !== null)
      .map((f) => [f.column, f.default]),
  );
}

/** `model` with its relations resolved against the other entities of `app`. */
function resolvedIn(app: AppModel, model: EntityModel): EntityModel {
  const others = app.entities.filter((e) => e.name.pascal !== model.name.pascal);
  return resolveRelations([...others, model], new Map()).at(-1)!;
}

/** The model of the spec a base copy holds; `undefined` when it has none or it no longer resolves. */
function baseSpecModel(specText: string | undefined): EntityModel | undefined {
  if (specText === undefined) return undefined;
  try {
    return resolveSpec(parseSpecText(specText, 'base'), 'base');
  } catch {
    return undefined;
  }
}

/**
 * The base schema with its foreign keys and join tables. A schema.json written before slicekit
 * recorded them has none: they are those of the spec the base copy holds (the one the slice was
 * last generated from), resolved against the app; failing that, the ones the new spec gives
 * columns and tables the table already has.
 */
function withRelations(
  schema: TableSnapshot,
  app: AppModel,
  model: EntityModel,
  specText: string | undefined,
): FullSnapshot {
  if (schema.foreignKeys && schema.joinTables) {
    return { ...schema, foreignKeys: schema.foreignKeys, joinTables: schema.joinTables };
  }
  const earlier = baseSpecModel(specText);
  let recorded: FullSnapshot | undefined;
  try {
    if (earlier) recorded = tableSnapshot(resolvedIn(app, earlier));
  } catch {
    recorded = undefined;
  }
  const now = tableSnapshot(model);
  const columns = new Set(schema.columns.map((c) => c.name));
  return {
    ...schema,
    foreignKeys:
      schema.foreignKeys ??
      recorded?.foreignKeys ??
      now.foreignKeys.filter((k) => columns.has(k.column)),
    joinTables: schema.joinTables ?? recorded?.joinTables ?? now.joinTables,
  };
}

/**
 * The base of an upgrade: the app's base copy, or, for a slice generated before base copies
 * existed, the earlier spec (`--base <file>`, else the saved spec when the new one is another
 * file) and, failing both, the new spec itself: then the table is taken as it is.
 */
export function findBase(
  appDir: string,
  app: AppModel,
  model: EntityModel,
  earlier: { model: EntityModel; text: string; from: string } | undefined,
): UpgradeBase {
  const copy = readBase(appDir, model.folder);
  if (copy) {
    const spec = copy.files.get(savedSpecPath(model));
    return { schema: withRelations(copy.schema, app, model, spec), files: copy.files };
  }
  const note = (from: string) =>
    `${model.name.pascal} had no base copy (.slicekit/slices/${model.folder}): generated before ` +
    `slicekit kept them. The base is ${from}, rendered again; your changes to the files are ` +
    'merged against it, and the base copy is written for the next time.';
  if (earlier) {
    const resolved = resolvedIn(app, earlier.model);
    return {
      schema: tableSnapshot(resolved),
      model: resolved,
      specText: earlier.text,
      note: note(earlier.from),
    };
  }
  return {
    schema: tableSnapshot(model),
    model,
    note:
      note('the spec as it is (no earlier spec was found)') +
      ' The table is taken to match the spec: if you already changed the spec, restore it, run ' +
      'again, then change it; or give the earlier spec with --base <file>.',
  };
}

/** The earlier spec of an app without base copies, when the saved one differs from the new. */
export function savedSpec(
  appDir: string,
  model: EntityModel,
  specText: string,
): { text: string; path: string } | undefined {
  const path = join(appDir, savedSpecPath(model));
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  return text === specText ? undefined : { text, path };
}

/**
 * The join tables of `model`'s required many-to-many fields, each to whether the field was
 * optional (or absent) in the base's spec; `undefined` when that spec is not known or not read.
 */
function requiredLinksOf(base: UpgradeBase, model: EntityModel): Map<string, boolean | undefined> {
  // An app without base copies has the earlier model already; a base copy has its spec's text.
  const earlier = base.model ?? baseSpecModel(base.files?.get(savedSpecPath(model)));
  const wasRequired = (name: string) =>
    earlier?.links.some((l) => l.name.camel === name && l.required);
  return new Map(
    (model.relations?.links ?? [])
      .filter(({ field }) => field.required)
      .map(({ field, joinTable }) => [
        joinTable.table,
        earlier === undefined ? undefined : !wasRequired(field.name.camel),
      ]),
  );
}

/** The table's changes, their risks and the migration's steps. */
export function schemaPlan(base: UpgradeBase, model: EntityModel, specText: string): SchemaPlan {
  const after = tableSnapshot(model);
  const fills = fillsOf(model);
  const renames = renamesOf(specText);
  // A rename names a column the table has, or one it had before an earlier upgrade renamed it.
  const had = new Set(base.schema.columns.map((c) => c.name));
  const unknown = [...renames].filter(([to, from]) => !had.has(from) && !had.has(to));
  if (unknown.length) {
    throw new EntitySpecError(
      'the spec',
      unknown.map(([to, from]) => ({
        path: `fields.${model.fields.find((f) => f.column === to)?.name.camel ?? to}.renamedFrom`,
        message: `the ${base.schema.table} table has no column ${from} to rename`,
        fix: `name the field as the slice last had it: ${[...had].join(', ')}`,
      })),
    );
  }
  const { changes, risks } = diffTables(base.schema, after, {
    renames,
    fills,
    requiredLinks: requiredLinksOf(base, model),
  });
  return {
    before: base.schema,
    after,
    changes,
    risks,
    steps: migrationSteps(changes, base.schema, after, fills),
  };
}

/** One file of the plan. */
export interface FilePlan {
  path: string;
  outcome: FileOutcome;
}

/**
 * Each file's outcome, merging the app's files (ours) with the new rendering (theirs) against the
 * base. `force` takes theirs over ours without merging.
 */
export async function filePlan(
  plop: NodePlopAPI,
  appDir: string,
  model: EntityModel,
  options: { migrationName: string; specText: string; base: UpgradeBase; force: boolean },
): Promise<{ theirs: Map<string, string>; files: FilePlan[] }> {
  const { migrationName, base } = options;
  const theirs = await renderSlice(plop, appDir, model, {
    migrationName,
    specText: options.specText,
  });
  const baseFiles =
    base.files ??
    (await renderSlice(plop, appDir, base.model ?? model, {
      migrationName,
      specText: base.specText ?? options.specText,
    }));
  const paths = [...new Set([...theirs.keys(), ...baseFiles.keys()])];
  const files = paths.map((path): FilePlan => {
    const file = join(appDir, path);
    const ours = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    const next = theirs.get(path);
    if (options.force && next !== undefined) {
      return {
        path,
        outcome:
          ours === next
            ? { kind: 'unchanged' }
            : ours === undefined
              ? { kind: 'add', text: next }
              : { kind: 'update', text: next },
      };
    }
    return { path, outcome: mergeFile(ours, baseFiles.get(path), next) };
  });
  return { theirs, files };
}
