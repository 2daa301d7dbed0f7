// src/slices/events.ts, the app's events type (every slice's events joined): its text from the app
// model, and the action rewriting it when a slice with events is generated or upgraded.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ActionType } from 'plop';
import { eventsIndex, type AppModel } from '../model/app.js';
import { formatFile } from './format.js';

const EVENTS_INDEX = 'src/slices/events.ts';

/**
 * The text of `src/slices/events.ts`: `AppEvents`, the events types of every slice of the app
 * model joined. Written whole on each run, so regenerating a slice never repeats an entry.
 */
export function appEventsText(app: AppModel): string {
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
}

/** The new text of `src/slices/events.ts`, or undefined when the file has it already. */
export async function appEventsChange(
  app: AppModel,
): Promise<{ path: string; text: string } | undefined> {
  const file = resolve(app.dir, EVENTS_INDEX);
  const text = await formatFile(appEventsText(app), file);
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return undefined;
  return { path: EVENTS_INDEX, text };
}

/** The action rewriting `src/slices/events.ts` once the slice's files are written. */
export function writeAppEvents(app: AppModel): ActionType {
  return async function writeAppEvents() {
    const change = await appEventsChange(app);
    if (!change) return `[SKIPPED] ${EVENTS_INDEX} (unchanged)`;
    writeFileSync(resolve(app.dir, change.path), change.text);
    return EVENTS_INDEX;
  };
}
