// Writes each slice's <entity>.relations.ts from the app model after every run, the one slice file
// that follows the other entities (a collection of an entity generated later, a nested member's
// fields): only those whose text changed are written, like src/slices/events.ts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActionType, NodePlopAPI } from 'plop';
import type { AppModel } from '../model/app.js';
import { formatFile } from './format.js';
import { hasRelations, relationsView } from './views/relations.js';

const TEMPLATE = fileURLToPath(
  new URL('../../templates/relations/relations.ts.hbs', import.meta.url),
);

/** Where a slice's relations file lives, relative to the app. */
export const relationsPath = (folder: string, kebab: string): string =>
  `src/slices/${folder}/${kebab}.relations.ts`;

/** The relations files of `app` whose text would change: app-relative path and new text. */
export async function relationFileChanges(
  plop: NodePlopAPI,
  app: AppModel,
): Promise<{ path: string; text: string }[]> {
  const template = readFileSync(TEMPLATE, 'utf8');
  const changes: { path: string; text: string }[] = [];
  for (const model of app.entities.filter(hasRelations)) {
    const path = relationsPath(model.folder, model.name.kebab);
    const file = resolve(app.dir, path);
    const text = await formatFile(plop.renderString(template, relationsView(model)), file);
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    changes.push({ path, text });
  }
  return changes;
}

/** The action (re)writing the relations file of every slice with relations in `app`. */
export function writeRelationFiles(plop: NodePlopAPI, app: AppModel): ActionType {
  return async function writeRelationFiles() {
    const written: string[] = [];
    for (const { path, text } of await relationFileChanges(plop, app)) {
      const file = resolve(app.dir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      written.push(path);
    }
    const deferred = app.entities.flatMap((e) =>
      (e.relations?.deferred ?? []).map((d) => `${e.name.pascal}.${d.name} (${d.entity})`),
    );
    const later = deferred.length
      ? `; waiting for ${deferred.join(', ')}: generated with its entity`
      : '';
    return written.length
      ? `${written.join(', ')} (relations, from the app model${later})`
      : `[SKIPPED] relations files (unchanged${later})`;
  };
}
