// The app model: every entity spec an app holds (saved beside its slice as
// src/slices/<folder>/<entity>.entity.yaml), loaded once per generator run and resolved against
// each other, so a new or changed entity is checked against the rest and app-wide files (the
// events index) come from the model, never from reading generated code back.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EntitySpecError, type SpecProblem } from './errors.js';
import { loadSpecFile } from './load.js';
import { resolveRelations } from './relations.js';
import type { EntityModel } from './types.js';

/** Every entity of one app. */
export interface AppModel {
  /** The app folder. */
  readonly dir: string;
  /** Every entity, in the order the app's slices are found (folder, then file name). */
  readonly entities: readonly EntityModel[];
}

const SPEC_FILE = /\.entity\.ya?ml$/;

/** Where a slice's spec is saved, relative to the app: `src/slices/<folder>/<entity>.entity.yaml`. */
export function savedSpecPath(model: Pick<EntityModel, 'folder' | 'name'>): string {
  return `src/slices/${model.folder}/${model.name.kebab}.entity.yaml`;
}

/** What a spec saved from prompt answers opens with: what it is, and how to generate it again. */
export function savedSpecHeader(model: Pick<EntityModel, 'folder' | 'name'>): string {
  return (
    `# ${model.name.pascal}: the entity spec this slice was generated from (docs/entity-spec.md).\n` +
    `# Regenerate with: npx plop entity -- --spec ${savedSpecPath(model)} --force\n`
  );
}

/** The saved spec files of an app, `src/slices/<folder>/<entity>.entity.yaml`, sorted. */
export function savedSpecFiles(appDir: string): string[] {
  const slices = join(appDir, 'src', 'slices');
  if (!existsSync(slices)) return [];
  return readdirSync(slices, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !/^[._]/.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .flatMap((folder) =>
      readdirSync(join(slices, folder))
        .filter((file) => SPEC_FILE.test(file))
        .sort()
        .map((file) => join(slices, folder, file)),
    );
}

/**
 * Loads and resolves every saved spec of the app at `appDir`. A saved spec that no longer
 * resolves is reported with its file, as any spec file is.
 *
 * @example
 * const app = loadAppModel(process.cwd());
 * app.entities.map((e) => e.name.pascal); // ['Customer', 'Product']
 */
export function loadAppModel(appDir: string): AppModel {
  const entities = savedSpecFiles(appDir).map((file) => loadSpecFile(file).model);
  // Their relations as the app holds them now; checked when a spec is generated, not here.
  return { dir: appDir, entities: resolveRelations(entities, new Map()) };
}

/** The app with `entity` added, or put in place of the entity of the same name. */
export function withEntity(app: AppModel, entity: EntityModel): AppModel {
  const others = app.entities.filter((e) => e.name.pascal !== entity.name.pascal);
  const entities = [...others, entity].sort((a, b) =>
    a.folder === b.folder
      ? a.name.kebab.localeCompare(b.name.kebab)
      : a.folder.localeCompare(b.folder),
  );
  return { ...app, entities };
}

/**
 * Refuses an entity that would share its table, its URL segment or its slice folder with another
 * entity of the app: both slices would write the same rows, answer on the same routes or
 * overwrite each other's files.
 */
export function checkAgainstApp(app: AppModel, entity: EntityModel, source: string): void {
  const problems: SpecProblem[] = [];
  for (const other of app.entities) {
    if (other.name.pascal === entity.name.pascal) continue;
    const clash = (path: string, what: string, value: string, fix: string) =>
      problems.push({
        path,
        message: `${what} "${value}" is already ${other.name.pascal}'s (src/slices/${other.folder})`,
        fix,
      });
    if (other.table === entity.table) {
      clash('table', 'table', entity.table, 'give the entity a table of its own with table: ...');
    }
    if (other.resource === entity.resource) {
      clash(
        'resource',
        'URL segment',
        entity.resource,
        'give the entity a URL segment of its own with resource: ...',
      );
    }
    if (other.folder === entity.folder) {
      clash('plural', 'slice folder', entity.folder, 'give the entity another plural');
    }
  }
  if (problems.length > 0) throw new EntitySpecError(source, problems);
}

/** The events types of the app's slices, for `src/slices/events.ts`: one per entity with events. */
export function eventsIndex(app: AppModel): { name: string; module: string }[] {
  return app.entities
    .filter((entity) => entity.events.length > 0)
    .map((entity) => ({
      name: `${entity.name.pascal}Events`,
      module: `./${entity.folder}/${entity.name.kebab}.events.js`,
    }))
    .sort((a, b) => a.module.localeCompare(b.module));
}
