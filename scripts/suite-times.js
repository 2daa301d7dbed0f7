// Writes the seconds per test file of a `SUITE_TIMES=<file> npm test` run into
// test/support/suite-times.json, by which `npm test` starts the longest files first; files of
// the list that no longer exist are dropped.
// Usage: node scripts/suite-times.js <file>
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'test/support/suite-times.json');
const source = process.argv[2];
if (!source) {
  console.error('usage: node scripts/suite-times.js <file written by SUITE_TIMES=<file> npm test>');
  process.exit(1);
}
const seconds = JSON.parse(readFileSync(target, 'utf8'));
for (const line of readFileSync(source, 'utf8').split('\n')) {
  const [measured, file] = line.trim().split(/\s+/);
  if (file && Number.isFinite(Number(measured))) seconds[file] = Math.round(Number(measured));
}
const kept = Object.keys(seconds)
  .filter((file) => existsSync(join(root, file)))
  .sort();
writeFileSync(
  target,
  `${JSON.stringify(Object.fromEntries(kept.map((f) => [f, seconds[f]])), null, 2)}\n`,
);
console.log(`${target}: ${kept.length} files`);
