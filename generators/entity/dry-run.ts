// `--dry-run` for what is not an upgrade: the plan of a new slice (its files, create migration and
// base copy) and of the app-wide files a run rewrites (src/slices/events.ts, the admin's
// admin/src/resources.ts, each slice's relations file), computed in memory like the real run and written nowhere.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ActionType, NodePlopAPI } from 'plop';
import type { AppModel } from '../model/app.js';
import type { EntityModel } from '../model/types.js';
import { BASE_ROOT, tableSnapshot, writeBase } from '../upgrade/base.js';
import { renderSlice } from '../upgrade/render.js';
import { createMigrationName, existingMigration } from './actions.js';
import { adminResourcesFile } from './admin-index.js';
import { adminModulesPlan, lacking } from './admin-modules.js';
import { appWideChange } from './app-wide-file.js';
import { appEventsFile } from './events-index.js';
import { relationFileChanges } from './relation-files.js';

/** One line of a plan: what happens to `path`, aligned like the upgrade's plan. */
const line = (what: string, path: string, why = '') =>
  `  ${what.padEnd(12)} ${path}${why ? ` (${why})` : ''}`;

export interface NewSlicePlanOptions {
  plop: NodePlopAPI;
  model: EntityModel;
  appDir: string;
  specText: string;
  force: boolean;
  now?: Date;
}

/** The plan of the files a new slice's run would write, as text. */
export async function describeNewSlice(options: NewSlicePlanOptions): Promise<string> {
  const { plop, model, appDir, specText, force } = options;
  const existing = existingMigration(appDir, model.table);
  const migrationName = createMigrationName(appDir, model, options.now);
  const theirs = await renderSlice(plop, appDir, model, { migrationName, specText });
  const out = [
    `New slice ${model.name.pascal} (src/slices/${model.folder}), dry run: nothing is written.`,
    'Files:',
    existing
      ? line('keep', `migrations/${existing}.ts`, 'a create migration is never rewritten')
      : line('add', `migrations/${migrationName}.ts`),
  ];
  let unchanged = 0;
  const kept: string[] = [];
  for (const [path, text] of theirs) {
    const file = join(appDir, path);
    const ours = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (ours === text) unchanged++;
    else if (ours === undefined) out.push(line('add', path));
    else if (force) out.push(line('overwrite', path));
    else {
      kept.push(path);
      out.push(line('keep', path, 'exists and differs from what the spec generates'));
    }
  }
  out.push(`  ${unchanged} file(s) unchanged`);
  // The real run saves a base copy only when it wrote every file (entity/actions.ts).
  if (kept.length === 0) {
    const base = await writeBase(appDir, model.folder, tableSnapshot(model), theirs, {
      dryRun: true,
    });
    out.push(...base.map((path) => line('base copy', path)));
  } else {
    out.push(`  ${BASE_ROOT}/${model.folder} is not renewed: files are kept (--force overwrites)`);
  }
  return out.join('\n');
}

/** The action printing a new slice's plan. */
export function newSlicePlan(options: NewSlicePlanOptions): ActionType {
  return async function dryRun() {
    return describeNewSlice(options);
  };
}

/**
 * The action printing the app-wide files the run would rewrite: the events index when a slice
 * of the run has events, the admin's index of pages, and every relations file the app model
 * changes.
 */
export function appWidePlan(
  plop: NodePlopAPI,
  app: AppModel,
  touches: { events: boolean; relations: boolean },
): ActionType {
  return async function dryRunAppWide() {
    const events = touches.events ? await appWideChange(appEventsFile, app) : undefined;
    const relations = touches.relations ? await relationFileChanges(plop, app) : [];
    const admin = await appWideChange(adminResourcesFile, app);
    const lines = [
      ...(events ? [line('update', events.path, "every slice's events")] : []),
      ...adminModulesPlan(app.dir).map(({ path, add, lacks }) =>
        add
          ? line('add', path, 'the admin pages import it')
          : line('keep', path, lacking(path, lacks)),
      ),
      ...(admin ? [line('update', admin.path, "every slice's admin pages")] : []),
      ...relations.map(({ path }) =>
        line(existsSync(join(app.dir, path)) ? 'update' : 'add', path, 'relations'),
      ),
    ];
    return lines.length
      ? ['App-wide files, dry run: nothing is written.', ...lines].join('\n')
      : '[SKIPPED] app-wide files (unchanged), dry run: nothing is written';
  };
}
