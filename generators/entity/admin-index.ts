// admin/src/resources.ts, the admin's list of entity pages, written from the app model when a
// slice is generated or upgraded (as src/slices/events.ts is).
import type { AppModel } from '../model/app.js';
import type { AppWideFile } from './app-wide-file.js';

/** `admin/src/resources.ts`: every entity's pages, in the app model's order. */
export const adminResourcesFile: AppWideFile = {
  path: 'admin/src/resources.ts',
  text(app: AppModel): string {
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
  },
};
