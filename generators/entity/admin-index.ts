// admin/src/resources.ts, the admin's list of entity pages: its text from the app model, and the
// action rewriting it when a slice is generated or upgraded (as src/slices/events.ts is).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ActionType } from 'plop';
import type { AppModel } from '../model/app.js';
import { formatFile } from './format.js';

const ADMIN_INDEX = 'admin/src/resources.ts';

/** The text of `admin/src/resources.ts`: every entity's pages, in the app model's order. */
export function adminResourcesText(app: AppModel): string {
  const imports = app.entities.map(
    (e) => `import { ${e.name.camel}Resource } from './resources/${e.name.kebab}.js';`,
  );
  return [
    "// Every entity's admin pages (src/resources/<entity>.tsx). Written by `npx plop entity` from the",
    "// app's entity specs, like src/slices/events.ts; the pages themselves are yours to edit.",
    "import type { AdminResource } from './resource.js';",
    ...imports,
    '',
    `export const resources: AdminResource[] = [${app.entities.map((e) => `${e.name.camel}Resource`).join(', ')}];`,
    '',
  ].join('\n');
}

/** The new text of `admin/src/resources.ts`, or undefined when the file has it already. */
export async function adminResourcesChange(
  app: AppModel,
): Promise<{ path: string; text: string } | undefined> {
  const file = resolve(app.dir, ADMIN_INDEX);
  const text = await formatFile(adminResourcesText(app), file);
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return undefined;
  return { path: ADMIN_INDEX, text };
}

/** The action rewriting `admin/src/resources.ts` once the slice's files are written. */
export function writeAdminResources(app: AppModel): ActionType {
  return async function writeAdminResources() {
    const change = await adminResourcesChange(app);
    if (!change) return `[SKIPPED] ${ADMIN_INDEX} (unchanged)`;
    writeFileSync(resolve(app.dir, change.path), change.text);
    return ADMIN_INDEX;
  };
}
