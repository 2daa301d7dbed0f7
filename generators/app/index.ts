// The `app` Plop generator: a new Express 5 + Knex app ready for `npx plop entity`.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ActionType, NodePlopAPI, PlopGeneratorConfig } from 'plop';
import prettier from 'prettier';
import { formatFile } from '../entity/format.js';
import { checkTargetFolder, installDependencies, linkSlicekit } from './actions.js';
import {
  appTemplateData,
  checkAppName,
  checkDatabase,
  type AppAnswers,
  type Database,
} from './options.js';
import { appTemplates } from './paths.js';

type PromptQuestion = Extract<PlopGeneratorConfig['prompts'], unknown[]>[number];

const databaseChoices: { name: string; value: Database }[] = [
  { name: 'SQLite (a file, no server needed)', value: 'sqlite' },
  { name: 'PostgreSQL', value: 'postgres' },
  { name: 'MySQL / MariaDB', value: 'mysql' },
];

/** The prompts, in order; plop bypass arguments use the same names. */
export const appPrompts: PromptQuestion[] = [
  { type: 'input', name: 'name', message: 'App name (npm package name)', validate: checkAppName },
  {
    type: 'input',
    name: 'directory',
    message: 'Folder to create',
    default: (answers: Partial<AppAnswers>) => answers.name,
  },
  {
    type: 'list',
    name: 'database',
    message: 'Database',
    choices: databaseChoices,
    default: 'sqlite',
    validate: checkDatabase,
  },
  { type: 'confirm', name: 'install', message: 'Run npm install now?', default: false },
];

/** The templates that hold the app's name or database (`src/config.ts.hbs`), under templates/app/. */
export function renderedAppTemplates(): string[] {
  return readdirSync(appTemplates, { recursive: true, encoding: 'utf8' })
    .map((path) => path.split('\\').join('/'))
    .filter((path) => path.endsWith('.hbs'))
    .sort();
}

/** The actions for a set of answers; a relative folder resolves against `cwd`. */
export function appActions(answers: AppAnswers, cwd: string = process.cwd()): ActionType[] {
  const data = appTemplateData(answers, cwd);
  const actions: ActionType[] = [
    checkTargetFolder(data),
    {
      type: 'addMany',
      destination: data.directory,
      base: appTemplates,
      templateFiles: join(appTemplates, '**', '*'),
      // node-plop globs from the plopfile's folder (the working folder when there is none), and
      // ignore patterns are relative to the glob's cwd: anchor them at the templates.
      globOptions: { cwd: appTemplates, dot: true, ignore: ['**/gitignore', '**/*.hbs'] },
      data,
      abortOnFail: true,
      verbose: false,
    },
    // What a name or database fills in changes the length of a line (a 40-character name in the
    // default database URL of src/config.ts): these files are formatted after rendering, with the
    // app's own Prettier config, so `npm run lint` passes for every name. Prettier leaves files it
    // has no parser for (Dockerfile, .env.example) alone, and so does this.
    ...renderedAppTemplates().map((template): ActionType => {
      const path = join(data.directory, template.replace(/\.hbs$/, ''));
      return {
        type: 'add',
        path,
        templateFile: join(appTemplates, template),
        data,
        abortOnFail: true,
        transform: async (text: string) =>
          (await prettier.getFileInfo(path)).inferredParser ? formatFile(text, path) : text,
      };
    }),
    // npm leaves `.gitignore` out of published packages, so the template goes by another name.
    {
      type: 'add',
      path: join(data.directory, '.gitignore'),
      templateFile: join(appTemplates, 'gitignore'),
      data,
      abortOnFail: true,
    },
    linkSlicekit(data),
  ];
  if (data.install) actions.push(installDependencies(data));
  return actions;
}

/**
 * Registers the `app` generator.
 *
 * @example
 * // npx plop app -- --name shop --database postgres --install false
 * export default (plop) => registerAppGenerator(plop);
 */
export function registerAppGenerator(plop: NodePlopAPI): void {
  plop.setGenerator('app', {
    description: 'a new Express 5 + Knex app (SQLite, PostgreSQL or MySQL)',
    prompts: appPrompts,
    actions: (answers) => appActions(answers as AppAnswers),
  });
}
