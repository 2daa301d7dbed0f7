#!/usr/bin/env node
// `slicekit new <dir>`: creates an app with the same Plop generator as `npx plop app`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { basename, relative, resolve } from 'node:path';
import nodePlop from 'node-plop';

const usage = `Usage: slicekit new <dir> [options]

Creates an Express 5 + Knex app in <dir> (which must be missing or empty).

Options:
  --name <name>       npm package name of the app (default: the folder's name)
  --database <db>     sqlite (default), postgres or mysql
  --install           run npm install in the new app
  --no-install        do not run npm install (the default)
  -y, --yes           take the default for every question no flag answers
  -h, --help          show this help
  -v, --version       print slicekit's version

Without --yes, questions the flags leave open are asked when the terminal is interactive.
Then, in the app: npx plop entity (add a resource), npm run migrate, npm test, npm run dev.`;

function fail(message) {
  console.error(`slicekit: ${message}\n\n${usage}`);
  process.exit(2);
}

function parse(argv) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        database: { type: 'string' },
        install: { type: 'boolean' },
        'no-install': { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    return fail(error.message);
  }
}

const { values, positionals } = parse(process.argv.slice(2));
if (values.help) {
  console.log(usage);
  process.exit(0);
}
if (values.version) {
  const manifest = new URL('../package.json', import.meta.url);
  console.log(JSON.parse(readFileSync(manifest, 'utf8')).version);
  process.exit(0);
}
const [command, dir, ...extra] = positionals;
if (command !== 'new') fail(command ? `unknown command "${command}"` : 'no command given');
if (!dir) fail('give the folder to create, e.g. slicekit new my-app');
if (extra.length > 0) fail(`unexpected arguments: ${extra.join(' ')}`);

const directory = resolve(dir);
// Checked before any question is asked; the generator checks again before it writes.
if (existsSync(directory)) {
  if (!statSync(directory).isDirectory()) {
    console.error(`slicekit: ${dir} exists and is a file: choose a new folder name`);
    process.exit(1);
  }
  if (readdirSync(directory).length > 0) {
    console.error(
      `slicekit: ${dir} already exists and is not empty: choose a new folder, or empty this one first`,
    );
    process.exit(1);
  }
}
const install = values.install ? true : values['no-install'] ? false : undefined;
const { app } = await import('./generators.js');
const plop = await nodePlop(undefined, { destBasePath: process.cwd(), force: false });
app(plop);
const generator = plop.getGenerator('app');

// The folder's name, made into a package name: "My Shop" -> "my-shop".
const folderName = basename(directory)
  .toLowerCase()
  .replace(/[^a-z0-9-]+/g, '-')
  .replace(/^[^a-z]+|-+$/g, '');

// Answers, in prompt order: name, directory, database, install. '_' leaves a prompt to ask.
const asks = !values.yes && process.stdin.isTTY;
const given = [values.name ?? folderName, directory, values.database, install];
const defaults = [folderName, directory, 'sqlite', false];
const answers = asks
  ? await generator.runPrompts(given.map((value) => (value === undefined ? '_' : String(value))))
  : Object.fromEntries(
      ['name', 'directory', 'database', 'install'].map((key, i) => [key, given[i] ?? defaults[i]]),
    );

let result;
try {
  result = await generator.runActions(answers);
} catch (error) {
  // Answers the generator cannot use (a bad name or database) are refused before any file is written.
  console.error(`slicekit: ${error.message}`);
  process.exit(1);
}
const { changes, failures } = result;
if (failures.length > 0) {
  // The first failure is the cause; node-plop reports every later action as aborted.
  console.error(`slicekit: ${failures[0].error ?? failures[0].message}`);
  process.exit(1);
}

const where = relative(process.cwd(), directory) || '.';
console.log(`Created ${answers.name} in ${where} (${changes.length} steps).

Next:
  cd ${where}${answers.install ? '' : '\n  npm install'}
  npx plop entity                     # add a resource (or: -- --spec path/to/entity.yaml)
  npm run migrate && npm run seed
  npm run dev                         # serves http://localhost:3000
  npm test
`);
