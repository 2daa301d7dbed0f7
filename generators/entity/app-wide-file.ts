// The app-wide files written whole from the app model on every run (src/slices/events.ts,
// admin/src/resources.ts): the change a run would make, for the dry run's plan, and the action
// making it once the slice's files are written.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ActionType } from 'plop';
import type { AppModel } from '../model/app.js';
import { formatFile } from './format.js';

/** One app-wide file: where it lives in the app, and its text from the app model. */
export interface AppWideFile {
  readonly path: string;
  text(app: AppModel): string;
}

/** The file's new text, or undefined when the app has it already. */
export async function appWideChange(
  file: AppWideFile,
  app: AppModel,
): Promise<{ path: string; text: string } | undefined> {
  const target = resolve(app.dir, file.path);
  const text = await formatFile(file.text(app), target);
  if (existsSync(target) && readFileSync(target, 'utf8') === text) return undefined;
  return { path: file.path, text };
}

/** The action rewriting the file when its text changed. */
export function writeAppWide(file: AppWideFile, app: AppModel): ActionType {
  return async function writeAppWideFile() {
    const change = await appWideChange(file, app);
    if (!change) return `[SKIPPED] ${file.path} (unchanged)`;
    writeFileSync(resolve(app.dir, change.path), change.text);
    return file.path;
  };
}
