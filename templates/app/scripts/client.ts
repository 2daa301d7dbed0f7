// `npm run client`: writes client/schema.ts, the types of the typed client (client/index.ts), from
// the app's OpenAPI document, built from the slices as /openapi.json serves it; no server and no
// database needed. `npm run build` runs it first; `npm run client -- --check` only says whether
// the file is up to date (exit 1 when not), for CI.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import prettier from 'prettier';
import { discoverSlices } from '@slicekit/runtime/crud';
import { openApiDocument } from '../src/openapi.js';

const target = fileURLToPath(new URL('../client/schema.ts', import.meta.url));
const header =
  '// Written by `npm run client` from the OpenAPI document of this app (scripts/client.ts):\n' +
  '// do not edit; change the slices, then run it again.\n';

const slices = await discoverSlices(new URL('../src/slices/', import.meta.url));
// Described as when AUTH_* settings let callers send a bearer token, whatever this machine's
// settings: the types then hold every answer the app may give, and the file is the same everywhere.
const document = openApiDocument(slices, 'optional');
const ast = await openapiTS(document as unknown as OpenAPI3);
const options = await prettier.resolveConfig(target);
const source = await prettier.format(header + astToString(ast), { ...options, filepath: target });

const current = await readFile(target, 'utf8').catch(() => undefined);
if (process.argv.includes('--check')) {
  if (current !== source) {
    console.error('client/schema.ts is out of date with the slices: run npm run client');
    process.exit(1);
  }
} else if (current !== source) {
  await writeFile(target, source);
  console.log('client: wrote client/schema.ts');
} else {
  console.log('client: client/schema.ts is up to date');
}
