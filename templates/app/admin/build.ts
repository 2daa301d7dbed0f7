// Builds the admin UI (admin/src) into dist/admin, which the app serves at /admin (src/admin.ts):
// `npm run build:admin`, and part of `npm run build`. esbuild bundles it in a second or two.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const admin = fileURLToPath(new URL('./', import.meta.url));
const out = fileURLToPath(new URL('../dist/admin/', import.meta.url));

// The package export conditions node runs with (`--conditions=...` in NODE_OPTIONS), so the
// bundle takes the same files of each package as the server does.
const conditions = [
  ...(process.env.NODE_OPTIONS ?? '').matchAll(/(?:--conditions[= ]|-C\s*)(\S+)/g),
].map(([, name]) => name!);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await esbuild.build({
  entryPoints: [`${admin}src/main.tsx`],
  outfile: `${out}main.js`,
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  conditions,
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  logLevel: 'warning',
});
cpSync(`${admin}index.html`, `${out}index.html`);
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`admin built into dist/admin (${Math.round(bytes / 1024)} kB with its source map)`);
