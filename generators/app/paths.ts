// Where slicekit's own files are, from the TypeScript sources and from the compiled `dist/` build
// alike (the build copies templates/ to dist/templates/).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === 'slicekit') return dir;
    }
    if (dirname(dir) === dir) {
      throw new Error(`slicekit's package.json was not found above ${start}`);
    }
  }
}

/** The folder holding slicekit's `package.json`, `templates/` and `runtime/`. */
export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The app generator's template tree: `templates/app`, or `dist/templates/app` once compiled. */
export const appTemplates = fileURLToPath(new URL('../../templates/app/', import.meta.url));

/** The runtime package of this checkout (absent from a published install of slicekit). */
export const runtimeFolder = join(packageRoot, 'runtime');

/** True when `dir` is `root` itself or lies somewhere below it. */
export function isInside(dir: string, root: string): boolean {
  const path = relative(root, dir);
  return path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}

/** A `file:` dependency specifier from `from` to `to`, with forward slashes on every platform. */
export function fileSpecifier(from: string, to: string): string {
  const path = relative(from, to).split(sep).join('/');
  return `file:${path === '' ? '.' : path}`;
}
