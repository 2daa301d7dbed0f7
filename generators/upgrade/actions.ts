// The actions of `npx plop entity` on a slice the app has already: an ALTER migration with the
// table's difference, each generated file merged three ways (or overwritten with --force), the
// base copy renewed, and the conflicts listed last (the command then exits non-zero). With
// --dry-run one action prints the plan and nothing is written.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ActionType, NodePlopAPI } from 'plop';
import { savedSpecPath, type AppModel } from '../model/app.js';
import { loadSpecFile } from '../model/load.js';
import type { EntityModel } from '../model/types.js';
import { createMigrationName, entityActions } from '../entity/actions.js';
import { adminResourcesFile } from '../entity/admin-index.js';
import { addAdminModules } from '../entity/admin-modules.js';
import { writeAppWide } from '../entity/app-wide-file.js';
import { appEventsFile } from '../entity/events-index.js';
import { sliceBase } from '../entity/views/index.js';
import { BASE_ROOT, tableSnapshot, writeBase } from './base.js';
import { DataLossError, UpgradeConflictError } from './errors.js';
import { alterMigrationName, alterMigrationView, renderAlterMigration } from './migration.js';
import {
  findBase,
  filePlan,
  savedSpec,
  schemaPlan,
  type FilePlan,
  type SchemaPlan,
} from './plan.js';
import { describePlan } from './report.js';
import { slicePaths } from './render.js';

export interface UpgradeOptions {
  plop: NodePlopAPI;
  model: EntityModel;
  /** Every entity of the app, `model` included. */
  app: AppModel;
  specText: string;
  appDir: string;
  force: boolean;
  dryRun: boolean;
  acceptDataLoss: boolean;
  /** An earlier spec file to upgrade from, for an app without base copies. */
  baseSpec?: string;
  /** The tenant existing rows take when the upgrade adds `tenant: true` (`--default-tenant`). */
  defaultTenant?: string;
  now?: Date;
}

/** Whether the app has the slice of `model` already (its saved spec or its base copy). */
export function sliceExists(appDir: string, model: EntityModel): boolean {
  const spec = join(appDir, savedSpecPath(model));
  return existsSync(spec) || existsSync(join(appDir, BASE_ROOT, model.folder, 'schema.json'));
}

/** The ALTER migration's action: written once, never over an existing file. */
function migrationAction(options: UpgradeOptions, plan: SchemaPlan, name: string): ActionType {
  return async function writeAlterMigration() {
    if (plan.changes.length === 0) {
      return `[SKIPPED] no migration: the ${options.model.table} table is unchanged`;
    }
    const path = `migrations/${name}.ts`;
    const file = resolve(options.appDir, path);
    if (existsSync(file)) throw new Error(`${path} exists already; run again a second later`);
    const view = alterMigrationView(options.model, plan.changes, plan.steps);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, await renderAlterMigration(options.plop, view, file));
    return path;
  };
}

const VERBS: Record<FilePlan['outcome']['kind'], string> = {
  add: '',
  update: '[UPDATED] ',
  merged: '[MERGED] ',
  conflict: '[CONFLICT] ',
  remove: '[REMOVED] ',
  unchanged: '[SKIPPED] ',
  keep: '[KEPT] ',
};

/** Writes one file's outcome, and says what it did. */
function applyFile(appDir: string, { path, outcome }: FilePlan): string {
  const file = join(appDir, path);
  if ('text' in outcome) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, outcome.text);
  } else if (outcome.kind === 'remove') {
    rmSync(file);
  }
  const why =
    outcome.kind === 'unchanged'
      ? ' (unchanged)'
      : 'reason' in outcome
        ? ` (${outcome.reason})`
        : '';
  return `${VERBS[outcome.kind]}${path}${why}`;
}

/**
 * The actions upgrading an existing slice to its spec (see docs/evolving-entities.md). Throws
 * `DataLossError` before anything is written when a change may lose data and `acceptDataLoss` is
 * not set (a dry run reports it instead).
 */
export function upgradeActions(options: UpgradeOptions): ActionType[] {
  const { plop, model, appDir, specText } = options;
  const earlierFile = options.baseSpec ? resolve(process.cwd(), options.baseSpec) : undefined;
  const saved = earlierFile ? undefined : savedSpec(appDir, model, specText);
  const earlier = earlierFile
    ? { ...loadSpecFile(earlierFile), from: earlierFile }
    : saved && { ...loadSpecFile(saved.path), from: `the saved spec ${saved.path}` };
  const base = findBase(appDir, options.app, model, earlier);
  const plan = schemaPlan(base, model, specText, options.defaultTenant);
  const now = options.now ?? new Date();
  const alterName = alterMigrationName(now, model.table);
  const migrationName = createMigrationName(appDir, model, now);
  if (options.dryRun) {
    return [
      async function dryRun() {
        const { files, theirs } = await filePlan(plop, appDir, model, {
          migrationName,
          specText,
          base,
          force: options.force,
        });
        const baseCopy = await writeBase(appDir, model.folder, tableSnapshot(model), theirs, {
          dryRun: true,
        });
        return describePlan({ model, base, plan, files, alterName, dryRun: true, baseCopy });
      },
    ];
  }
  if (plan.risks.length && !options.acceptDataLoss)
    throw new DataLossError(model.table, plan.risks);
  const alter = migrationAction(options, plan, alterName);
  if (options.force) {
    return entityActions({ ...options, extraActions: [alter] });
  }
  let planned: { theirs: Map<string, string>; files: FilePlan[] } | undefined;
  const ready = async () =>
    (planned ??= await filePlan(plop, appDir, model, {
      migrationName,
      specText,
      base,
      force: false,
    }));
  const conflicts: { path: string; reason: string }[] = [];
  // Every path either side has: known before rendering, so each file gets its own line.
  const paths = [
    ...new Set([
      ...slicePaths(model, { migrationName, specText }),
      ...(base.files
        ? base.files.keys()
        : slicePaths(base.model ?? model, { migrationName, specText: base.specText ?? specText })),
    ]),
  ];
  return [
    ...(base.note ? [base.note] : []),
    alter,
    ...paths.map(
      (path): ActionType =>
        async function mergeFile() {
          const file = (await ready()).files.find((f) => f.path === path)!;
          const { outcome } = file;
          if (outcome.kind === 'conflict' || (outcome.kind === 'keep' && outcome.conflict)) {
            conflicts.push({ path, reason: outcome.reason });
          }
          return applyFile(appDir, file);
        },
    ),
    ...(sliceBase(model).hasEvents ? [writeAppWide(appEventsFile, options.app)] : []),
    addAdminModules(appDir),
    writeAppWide(adminResourcesFile, options.app),
    async function saveBaseCopy() {
      const { theirs } = await ready();
      const changed = await writeBase(appDir, model.folder, tableSnapshot(model), theirs);
      return changed.length
        ? `${BASE_ROOT}/${model.folder} (base copy of the slice: commit it with the app)`
        : `[SKIPPED] ${BASE_ROOT}/${model.folder} (unchanged)`;
    },
    async function listConflicts() {
      if (conflicts.length) throw new UpgradeConflictError(conflicts);
      return `[SKIPPED] no conflicts`;
    },
  ];
}
