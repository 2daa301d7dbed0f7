// slicekit's Plop generators as the package export `slicekit/plop`: the compiled dist/ of an
// installed package, or, in a checkout, the TypeScript sources through tsx, so they are always
// current without a build and load the same way on Node 20 and 22+.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ keeps the compiled code of what loads next (the generators, Prettier, ajv...) in a
// cache on disk, so each later `npx plop entity` starts faster; older Node versions skip it.
module.enableCompileCache?.();

const source = new URL('../plopfile.ts', import.meta.url);

async function load() {
  if (existsSync(source)) {
    const { register } = await import('tsx/esm/api');
    register();
    return import(source.href);
  }
  return import('../dist/plopfile.js');
}

const generators = await load();

/** Registers the `app` generator on a plop instance. */
export const app = generators.app;
/** Registers the `entity` generator on a plop instance (what a generated app's plopfile calls). */
export const entity = generators.entity;
/** Registers both. */
export default generators.default;
