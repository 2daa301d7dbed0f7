// src/slices/events.ts, the app's events type (every slice's events joined), written from the app
// model when a slice with events is generated or upgraded.
import { eventsIndex, type AppModel } from '../model/app.js';
import type { AppWideFile } from './app-wide-file.js';

/**
 * `src/slices/events.ts`: `AppEvents`, the events types of every slice of the app model joined.
 * Written whole on each run, so regenerating a slice never repeats an entry.
 */
export const appEventsFile: AppWideFile = {
  path: 'src/slices/events.ts',
  text(app: AppModel): string {
    const entries = eventsIndex(app);
    const imports = entries.map((e) => `import type { ${e.name} } from '${e.module}';`);
    const type = entries.length ? entries.map((e) => e.name).join(' & ') : 'Record<never, never>';
    return [
      "// Every slice's events by name: the type of the app's event bus (src/events.ts). Written by",
      "// `npx plop entity` from the events of the slices' entity specs; edit those, not this.",
      ...imports,
      '',
      `export type AppEvents = ${type};`,
      '',
    ].join('\n');
  },
};
