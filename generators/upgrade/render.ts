// A slice rendered in memory, formatted as the generator writes it: the "theirs" of a merge (and,
// for an app without base copies, the base rendered from the earlier spec).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { NodePlopAPI } from 'plop';
import type { EntityModel } from '../model/types.js';
import { formatFile } from '../entity/format.js';
import { renderPath, sliceFiles } from '../entity/actions.js';

/** App-relative paths of the slice's files (the create migration left out), in template order. */
export function slicePaths(
  model: EntityModel,
  options: { migrationName: string; specText: string },
): string[] {
  return sliceFiles(model, options)
    .map((f) => renderPath(f.path, f.data))
    .filter((path) => !path.startsWith('migrations/'));
}

/**
 * Every file of the slice of `model` (the create migration left out) as the generator writes it:
 * app-relative path to formatted text.
 */
export async function renderSlice(
  plop: NodePlopAPI,
  appDir: string,
  model: EntityModel,
  options: { migrationName: string; specText: string },
): Promise<Map<string, string>> {
  const files = sliceFiles(model, options).filter((f) => !f.path.startsWith('migrations/'));
  const rendered = await Promise.all(
    files.map(async (f) => {
      const path = renderPath(f.path, f.data);
      const text = plop.renderString(readFileSync(f.template, 'utf8'), f.data);
      return [path, await formatFile(text, resolve(appDir, path))] as const;
    }),
  );
  return new Map(rendered);
}
