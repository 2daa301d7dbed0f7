// `discoverSlices`: every slice folder's `index` is imported at start-up, so a new slice is wired in
// by existing, never by editing a registration list.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SliceDiscoveryError } from './errors.js';
import type { SliceModule } from './types.js';

/** Options of `discoverSlices`. */
export interface DiscoverSlicesOptions {
  /**
   * Index file names tried in each folder, first found wins. Compiled apps have only `index.js`
   * and apps run by tsx only `index.ts`, so the default fits both.
   * @default ['index.js', 'index.ts']
   */
  indexFiles?: readonly string[];
}

function folderPath(dir: URL | string): string {
  if (dir instanceof URL) return fileURLToPath(dir);
  return dir.startsWith('file:') ? fileURLToPath(dir) : dir;
}

function checkSlice(file: string, value: unknown): SliceModule {
  if (typeof value !== 'object' || value === null) {
    throw new SliceDiscoveryError(file, 'has no default export; export default the SliceModule');
  }
  const slice = value as Partial<SliceModule>;
  if (typeof slice.name !== 'string' || slice.name.length === 0) {
    throw new SliceDiscoveryError(file, 'the default export has no name');
  }
  if (typeof slice.mount !== 'function') {
    throw new SliceDiscoveryError(file, 'the default export has no mount(router, deps) function');
  }
  if (typeof slice.dto !== 'object' || slice.dto === null || typeof slice.dto.name !== 'string') {
    throw new SliceDiscoveryError(file, 'the default export has no dto { name, schema }');
  }
  return slice as SliceModule;
}

/**
 * Imports `<dir>/<folder>/index.(js|ts)` for every folder of `dir` (sorted by name; folders
 * starting with `_` or `.` and folders without an index are passed over) and returns their
 * default-exported slices. A broken slice throws `SliceDiscoveryError` naming its file.
 *
 * @example
 * const slices = await discoverSlices(new URL('./slices/', import.meta.url));
 * for (const slice of slices) slice.mount(router, { knex, logger });
 */
export async function discoverSlices(
  dir: URL | string,
  options: DiscoverSlicesOptions = {},
): Promise<SliceModule[]> {
  const root = folderPath(dir);
  if (!existsSync(root)) return [];
  const indexFiles = options.indexFiles ?? ['index.js', 'index.ts'];
  const folders = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !/^[._]/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  const slices: SliceModule[] = [];
  const names = new Map<string, string>();
  for (const folder of folders) {
    const index = indexFiles.map((name) => join(root, folder, name)).find((f) => existsSync(f));
    if (!index) continue;
    let loaded: { default?: unknown };
    try {
      loaded = (await import(pathToFileURL(index).href)) as { default?: unknown };
    } catch (error) {
      throw new SliceDiscoveryError(index, `could not be imported: ${String(error)}`, {
        cause: error,
      });
    }
    const slice = checkSlice(index, loaded.default);
    const clash = names.get(slice.name);
    if (clash)
      throw new SliceDiscoveryError(index, `slice name "${slice.name}" is also ${clash}'s`);
    names.set(slice.name, index);
    slices.push(slice);
  }
  return slices;
}
