// One generated app for the suites that drive its own modules in process: generated into a
// scratch folder without installing (Node finds its packages in the checkout), with one entity.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import type { Express } from 'express';
import type { Knex } from 'knex';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../../../generators/entity/index.js';
import { repoRoot } from '../../e2e/support/workspace.js';

/** What a suite drives of the app: src/app.ts, src/db.ts and src/logger.ts. */
export interface AppModules {
  createApp(deps: { knex: Knex; logger: unknown; auth?: object }): Promise<Express>;
  createKnex(url: string): Knex;
  migrate(knex: Knex, logger: unknown): Promise<unknown>;
  createLogger(level: string, destination?: NodeJS.WritableStream): unknown;
}

/** The modules of `AppModules`, with `env` set while config.ts reads it. */
export function importAppModules(
  directory: string,
  env: Record<string, string | undefined> = {},
): Promise<AppModules> {
  return importApp<AppModules>(directory, ['src/app.ts', 'src/db.ts', 'src/logger.ts'], env);
}

/** Adds a hand-written slice (`src/slices/<folder>/index.ts`), found at start like the others. */
export function writeSlice(directory: string, folder: string, source: string): void {
  mkdirSync(join(directory, 'src/slices', folder), { recursive: true });
  writeFileSync(join(directory, 'src/slices', folder, 'index.ts'), source);
}

export interface GenerateOptions {
  /** @default 'shop' */
  name?: string;
  /**
   * The entity spec the app gets, or several (files or folders of specs), added in order.
   * @default the sample Product (docs/examples/product.yaml)
   */
  specFile?: string | readonly string[];
  /** @default 'sqlite' */
  database?: 'sqlite' | 'postgres' | 'mysql';
}

/** Generates the app into `directory` and adds the entities of `options.specFile`. */
export async function generateApp(directory: string, options: GenerateOptions = {}): Promise<void> {
  const { name = 'shop', database = 'sqlite' } = options;
  const specFiles = [options.specFile ?? join(repoRoot, 'docs/examples/product.yaml')].flat();
  const plop = await nodePlop(join(repoRoot, 'plopfile.ts'), {
    destBasePath: repoRoot,
    force: false,
  });
  const app = await plop
    .getGenerator('app')
    .runActions({ name, directory, database, install: false });
  expect(app.failures).to.deep.equal([]);
  const inApp = await nodePlop(undefined, { destBasePath: directory, force: false });
  registerEntityGenerator(inApp);
  for (const specFile of specFiles) {
    const entity = await inApp.getGenerator('entity').runActions({ specFile });
    expect(entity.failures).to.deep.equal([]);
  }
}

/**
 * The exports of the app's `files` (paths from its folder), merged, with `env` set while they load:
 * the app's config.ts reads the environment once, when first imported.
 */
export async function importApp<Modules>(
  directory: string,
  files: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<Modules> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  const assign = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  assign(env);
  try {
    const loaded = await Promise.all(
      files.map((file) => import(pathToFileURL(join(directory, file)).href) as Promise<object>),
    );
    return Object.assign({}, ...loaded) as Modules;
  } finally {
    assign(saved);
  }
}
