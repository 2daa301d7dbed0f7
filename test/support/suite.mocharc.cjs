// The configuration of `npm test`, the whole suite in two workers: the settings of .mocharc.json
// (which `npx mocha <file>` uses alone) and every test/**/*.test.ts file, longest first. Mocha's
// workers take the files in the order given, so a long file started last would leave one worker
// running it alone at the end; the seconds of each file are in suite-times.json (a measured run,
// see docs/testing.md). A file not listed there (a new one) goes first, as it may be long.
const { readdirSync, readFileSync } = require('node:fs');
const { join, sep } = require('node:path');

const root = join(__dirname, '..', '..');
const settings = JSON.parse(readFileSync(join(root, '.mocharc.json'), 'utf8'));
const seconds = JSON.parse(readFileSync(join(__dirname, 'suite-times.json'), 'utf8'));

const files = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/${name.split(sep).join('/')}`)
  .sort();
const known = (file) => typeof seconds[file] === 'number';
const spec = [
  ...files.filter((file) => !known(file)),
  ...files.filter(known).sort((a, b) => seconds[b] - seconds[a]),
];

module.exports = { ...settings, spec: spec.map((file) => join(root, file)) };
