// Handlebars templates compiled when slicekit is built, not on each run. Compiling the dozen
// templates and their partials is most of a one-entity run's rendering time (Handlebars parses
// each and writes a JavaScript function), and a run compiles each only once, so only a build can
// save it: `npm run build:generators` writes <dist>/templates/precompiled.cjs, every .hbs file's
// compiled form keyed by a digest of its text; a run takes a template from there when its text
// is the same, else compiles it (the TypeScript sources, templates edited after the build).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Handlebars from 'handlebars';

/** A template as `Handlebars.precompile` writes it. */
export type TemplateSpec = Parameters<typeof Handlebars.template>[0];

/** Where the build writes the compiled templates, beside the templates the generators read. */
export const PRECOMPILED = fileURLToPath(new URL('../templates/precompiled.cjs', import.meta.url));

/** The digest a template is found by: its text, whole. */
export const templateKey = (text: string): string =>
  createHash('sha1').update(text).digest('base64url');

function hbsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return hbsFiles(path);
    return entry.name.endsWith('.hbs') ? [path] : [];
  });
}

/**
 * The source of a CommonJS module mapping the key of each .hbs file under `dir` to its compiled
 * form (`Handlebars.precompile` with the options plop compiles with: none).
 */
export function precompiledModule(handlebars: typeof Handlebars, dir: string): string {
  const entries = hbsFiles(dir)
    .map((file) => readFileSync(file, 'utf8'))
    .map((text) => `  ${JSON.stringify(templateKey(text))}: ${handlebars.precompile(text)},`);
  return `// Written by npm run build:generators (generators/precompiled.ts).\nmodule.exports = {\n${entries.join('\n')}\n};\n`;
}

/** The compiled templates of the build, or none (the sources run uncompiled). */
export function loadPrecompiled(file = PRECOMPILED): Record<string, TemplateSpec> {
  if (!existsSync(file)) return {};
  return createRequire(import.meta.url)(file) as Record<string, TemplateSpec>;
}

const BUILT_IN_HELPERS = new Set([
  'helperMissing',
  'blockHelperMissing',
  'each',
  'if',
  'unless',
  'with',
  'log',
  'lookup',
]);

/**
 * Whether `options` compile a template as plop's (none: a template rendered by `renderString`,
 * or a partial's, which takes its parent's options with Handlebars' defaults filled in), so that
 * a precompiled form is the same template.
 */
export function defaultOptions(options: CompileOptions | undefined): boolean {
  if (options === undefined) return true;
  const changed = Object.entries(options).some(
    ([key, value]) => !['data', 'knownHelpers', 'blockParams'].includes(key) && value,
  );
  const helpers = Object.entries(options.knownHelpers ?? {}).every(
    ([name, known]) => !known || BUILT_IN_HELPERS.has(name),
  );
  return !changed && helpers && options.data !== false;
}
