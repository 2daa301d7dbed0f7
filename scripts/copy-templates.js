// Part of `npm run build:generators`: the compiled generators read their templates from
// <outDir>/templates/, the same place relative to them as templates/ is to the TypeScript sources.
// Usage: node scripts/copy-templates.js [outDir, default dist]
import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(resolve(root, process.argv[2] ?? 'dist'), 'templates');
rmSync(target, { recursive: true, force: true });
cpSync(join(root, 'templates'), target, { recursive: true });
