// The entity generator's actions: one plop `add` per file of templates/entity/, whose tree reads
// like the output (`__folder__` stands for {{folder}}). Existing files are kept unless forced.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SlicekitError } from '@slicekit/runtime/domain';
import type { ActionType, NodePlopAPI } from 'plop';
import { savedSpecPath, type AppModel } from '../model/app.js';
import { adminResourcesFile } from './admin-index.js';
import { addAdminModules } from './admin-modules.js';
import { writeAppWide } from './app-wide-file.js';
import { appEventsFile } from './events-index.js';
import type { EntityModel } from '../model/types.js';
import { formatFile } from './format.js';
import { BASE_ROOT, keptInBase, tableSnapshot, writeBase } from '../upgrade/base.js';
import { sliceBase, templateView } from './views/index.js';

export const TEMPLATE_ROOT = fileURLToPath(new URL('../../templates/entity/', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

/** The partials the templates share (registered by ../helpers.ts): not files of their own. */
const PARTIALS = 'partials/';

/**
 * Every template, with its path under templates/entity/ (`name`, which picks its view) and the
 * destination path it renders to (a plop path template).
 */
export function templateFiles(): { template: string; name: string; path: string }[] {
  return walk(TEMPLATE_ROOT)
    .map((template) => ({
      template,
      name: relative(TEMPLATE_ROOT, template).split('\\').join('/'),
    }))
    .filter(({ name }) => name.endsWith('.hbs') && !name.startsWith(PARTIALS))
    .map(({ template, name }) => ({
      template,
      name,
      path: name.replace(/\.hbs$/, '').replace(/__([A-Za-z.]+)__/g, '{{$1}}'),
    }));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `20240501093000`: the UTC timestamp Knex migration names start with. */
export function migrationStamp(now: Date): string {
  return `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
}

/** The migration already generated for `table`, so a second run never adds a second one. */
export function existingMigration(appDir: string, table: string): string | undefined {
  const dir = join(appDir, 'migrations');
  if (!existsSync(dir)) return undefined;
  const pattern = new RegExp(`^(\\d+_create_${table})\\.ts$`);
  for (const file of readdirSync(dir).sort()) {
    const match = pattern.exec(file);
    if (match) return match[1];
  }
  return undefined;
}

export interface EntityActionOptions {
  model: EntityModel;
  /** Every entity of the app, `model` included. */
  app: AppModel;
  /** The spec as saved beside the slice. */
  specText: string;
  /** The app folder (plop's destination). */
  appDir: string;
  force: boolean;
  /** Time stamp of a new migration. @default now */
  now?: Date;
  /** Renders the files an existing slice keeps, to tell a file that differs from one that does not. */
  plop?: NodePlopAPI;
  /** Actions run after the slice's files (an ALTER migration of a forced upgrade). */
  extraActions?: ActionType[];
}

/** One file of a slice: its template, the plop path it renders to, and its view. */
export interface SliceFile {
  template: string;
  /** Path under templates/entity/, which picks the view. */
  name: string;
  /** Destination as a plop path template (`src/slices/{{folder}}/...`). */
  path: string;
  data: object;
}

/** The create migration's name: the one the app has, or a new one stamped `now`. */
export function createMigrationName(appDir: string, model: EntityModel, now?: Date): string {
  return (
    existingMigration(appDir, model.table) ??
    `${migrationStamp(now ?? new Date())}_create_${model.table}`
  );
}

/** Every file the slice of `model` has, each with the view its template renders with. */
export function sliceFiles(
  model: EntityModel,
  options: { migrationName: string; specText: string },
): SliceFile[] {
  const base = sliceBase(model);
  // Files a slice has only when its spec asks for them.
  const wanted = (path: string) =>
    (base.hasEvents || !path.endsWith('.events.ts')) &&
    (base.hasReferenceData || !path.endsWith('.reference-data.ts')) &&
    (base.hasSequences || !path.endsWith('.sequences.ts'));
  // Each template renders with a view of its own (views/index.ts).
  return templateFiles()
    .filter(({ path }) => wanted(path))
    .map((file) => ({ ...file, data: templateView(file.name, model, base, options) }));
}

/** A plop path template filled in from the file's view (and the answers under it). */
export function renderPath(path: string, data: object, answers: object = {}): string {
  return path.replace(/\{\{([A-Za-z.]+)\}\}/g, (_, key: string) =>
    String(
      key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], {
        ...answers,
        ...data,
      }),
    ),
  );
}

/** The `add` actions writing one slice, then its base copy (.slicekit/, ../upgrade/base.ts). */
export function entityActions(options: EntityActionOptions): ActionType[] {
  const { model, appDir, force } = options;
  const existing = existingMigration(appDir, model.table);
  const migrationName = createMigrationName(appDir, model, options.now);
  // A create migration may have run already: rewriting it (even with --force) would leave the
  // databases it ran on with another schema than the file says. A change gets a new migration.
  const keptMigration = existing
    ? `[SKIPPED] migrations/${existing}.ts (kept, even with --force: it may have run already; ` +
      `a schema change needs a new migration in migrations/)`
    : undefined;
  // What each file was rendered to, for the base copy.
  const written = new Map<string, string>();
  const kept: KeptFiles = { changed: [], differing: [] };
  const files = sliceFiles(model, { migrationName, specText: options.specText });
  const destination = (path: string, data: object) => resolve(appDir, renderPath(path, data));
  // A file of the slice may exist while the slice has no saved spec or base copy to upgrade from
  // (../upgrade/actions.ts sliceExists): it is kept unless forced, and the run says why.
  const filesExist = !force && files.some(({ path, data }) => existsSync(destination(path, data)));
  // The saved spec goes last: it is saved only when it describes the files (none was kept).
  const saved = (path: string) => path.endsWith('.entity.yaml');
  return [...files.filter((f) => !saved(f.path)), ...files.filter((f) => saved(f.path))]
    .map(({ template, path, data }): ActionType => ({
      type: 'add',
      path,
      templateFile: template,
      data,
      force,
      skipIfExists: !force,
      skip: async () => {
        if (keptMigration && path.startsWith('migrations/')) return keptMigration;
        const file = destination(path, data);
        const rendered = renderPath(path, data);
        if (!force && saved(path) && kept.differing.length > 0) {
          // Saved, it would say the slice is the new spec's, and an upgrade would start from it.
          return `[SKIPPED] ${rendered} (not saved: it would not describe the files kept)`;
        }
        if (force || !options.plop || !existsSync(file)) return undefined;
        const text = await formatFile(
          options.plop.renderString(readFileSync(template, 'utf8'), data),
          file,
        );
        if (readFileSync(file, 'utf8') === text) {
          written.set(rendered, text);
          return `[SKIPPED] ${rendered} (unchanged)`;
        }
        kept.differing.push(rendered);
        return `[SKIPPED] ${rendered} (exists and differs from what the spec generates; kept)`;
      },
      transform: async (text: string, answers: Record<string, unknown>) => {
        const rendered = renderPath(path, data, answers);
        const formatted = await formatFile(text, resolve(appDir, rendered));
        written.set(rendered, formatted);
        kept.changed.push(rendered);
        return formatted;
      },
    }))
    .concat(options.extraActions ?? [])
    .concat(sliceBase(model).hasEvents ? [writeAppWide(appEventsFile, options.app)] : [])
    .concat([addAdminModules(appDir), writeAppWide(adminResourcesFile, options.app)])
    .concat([saveBaseCopy(model, appDir, written, files.length)])
    .concat(filesExist && options.plop ? [reportKeptFiles(model, kept)] : []);
}

const count = (n: number) => (n === 1 ? '1 file' : `${n} files`);

/** What the run of one slice wrote, and the files it kept although they differ. */
interface KeptFiles {
  changed: string[];
  differing: string[];
}

/** Raised when a run wrote none of a slice's files: each exists and differs from the spec's. */
export class SliceFilesKeptError extends SlicekitError {
  override name = 'SliceFilesKeptError';
  readonly files: readonly string[];

  constructor(model: EntityModel, files: readonly string[]) {
    const saved = savedSpecPath(model);
    super(
      'entity_spec.files_kept',
      `nothing was written: ${count(files.length)} of the ${model.folder} slice ` +
        `${files.length === 1 ? 'exists and differs' : 'exist and differ'} ` +
        `from what the spec generates, and the slice has neither its saved spec (${saved}) nor a ` +
        `base copy (${BASE_ROOT}/${model.folder}) to upgrade from. Run again with --force to ` +
        `overwrite them (edits in them are lost), or restore ${saved} as it was and run on the ` +
        `changed spec to upgrade the slice, merging your edits (docs/evolving-entities.md)`,
    );
    this.files = files;
  }
}

const reports = new WeakSet<object>();

/**
 * Whether `action` is the report of a slice's kept files, which a run of several slices moves
 * after all of them: its failure must not stop the slices after it.
 */
export function isKeptFilesReport(action: ActionType): boolean {
  return typeof action === 'function' && reports.has(action);
}

/**
 * The action saying what the run kept of a slice whose files existed: it fails, so plop exits
 * non-zero, when nothing was written and some file differs.
 */
function reportKeptFiles(model: EntityModel, kept: KeptFiles): ActionType {
  const report = async function reportKeptFiles() {
    if (kept.differing.length === 0) return `[SKIPPED] nothing of ${model.folder} differs`;
    if (kept.changed.length === 0) throw new SliceFilesKeptError(model, kept.differing);
    return (
      `[SKIPPED] ${count(kept.differing.length)} of ${model.folder} kept, differing from what ` +
      `the spec generates: --force overwrites them (docs/evolving-entities.md)`
    );
  };
  reports.add(report);
  return report;
}

/**
 * The action keeping what this run wrote under .slicekit/ (committed with the app), so the next
 * run on the slice merges against it. Files kept as they were (not forced) are not the
 * generator's latest output, so a partial run leaves the base copy alone.
 */
function saveBaseCopy(
  model: EntityModel,
  appDir: string,
  written: ReadonlyMap<string, string>,
  count: number,
): ActionType {
  return async function saveBaseCopy() {
    const kept = [...written.keys()].filter(keptInBase).length;
    const expected = count - 1; // every file but the create migration
    if (kept < expected) return `[SKIPPED] ${BASE_ROOT}/${model.folder} (files were kept)`;
    const changed = await writeBase(appDir, model.folder, tableSnapshot(model), written);
    return changed.length
      ? `${BASE_ROOT}/${model.folder} (base copy of the slice: commit it with the app)`
      : `[SKIPPED] ${BASE_ROOT}/${model.folder} (unchanged)`;
  };
}
