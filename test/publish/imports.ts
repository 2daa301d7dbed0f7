// What the files of a packed package import: every module specifier of its JavaScript and
// declaration files (static, dynamic, require and resolve calls), read with TypeScript's scanner so
// that comments and strings are not mistaken for imports.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';

export interface ImportSite {
  /** Path inside the package, e.g. `dist/index.js`. */
  file: string;
  specifier: string;
}

const resolveCall =
  /(?:\brequire|createRequire\([^()]*\)|import\.meta)\.resolve\(\s*['"]([^'"]+)['"]\s*[,)]/g;

/** Every specifier `file` loads or resolves, in source order, duplicates kept out. */
export function specifiersOf(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const found = importedFiles.map((entry) => entry.fileName);
  for (const match of text.matchAll(resolveCall)) found.push(match[1]!);
  return [...new Set(found)];
}

/** The package a bare specifier names: `mysql2/promise` → `mysql2`, `@a/b/c` → `@a/b`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(packageOf(specifier));
}

/** The code files of a package whose imports matter to a user: `.js`, `.cjs`, `.mjs`, `.d.ts`. */
export function codeFiles(files: readonly string[], skip: (file: string) => boolean): string[] {
  return files.filter((file) => /\.(c|m)?js$|\.d\.ts$/.test(file) && !skip(file));
}

/** Every import site of `files` (paths inside the package folder `dir`). */
export function importSites(dir: string, files: readonly string[]): ImportSite[] {
  return files.flatMap((file) =>
    specifiersOf(readFileSync(join(dir, file), 'utf8')).map((specifier) => ({ file, specifier })),
  );
}

/**
 * Whether a relative specifier of `file` reaches a file of the package: `./x.js` from a `.js`
 * file, or its declarations `./x.d.ts` from a `.d.ts` file.
 */
export function resolvesInside(dir: string, site: ImportSite): boolean {
  const target = posix.join(dirname(site.file), site.specifier);
  const candidates = site.file.endsWith('.d.ts')
    ? [target.replace(/\.js$/, '.d.ts'), `${target}.d.ts`, join(target, 'index.d.ts')]
    : [target];
  return candidates.some((candidate) => existsSync(join(dir, candidate)));
}
