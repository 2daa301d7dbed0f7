// Part of `npm run build:generators`: the compiled generators read their templates from
// <outDir>/templates/, the same place relative to them as templates/ is to the TypeScript sources,
// and take each template's compiled form from <outDir>/templates/precompiled.cjs (written here by
// the just-built generators/precompiled.js) instead of compiling it on each run; and the entity
// spec schema's ajv validator as code, <outDir>/generators/model/spec-validator.cjs.
// Usage: node scripts/copy-templates.js [outDir, default dist]
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Handlebars from 'handlebars';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(resolve(root, process.argv[2] ?? 'dist'), 'templates');
rmSync(target, { recursive: true, force: true });
cpSync(join(root, 'templates'), target, { recursive: true });
const { precompiledModule } = await import(
  pathToFileURL(join(target, '..', 'generators', 'precompiled.js')).href
);
writeFileSync(join(target, 'precompiled.cjs'), precompiledModule(Handlebars, target));
const { specValidatorModule } = await import(
  pathToFileURL(join(target, '..', 'generators', 'model', 'structure.js')).href
);
writeFileSync(
  join(target, '..', 'generators', 'model', 'spec-validator.cjs'),
  await specValidatorModule(),
);
