// Drives slicekit's generators in process, as the demo, the end-to-end tests and the benchmark do:
// a new app, then entities added to it from spec files.
import { fileURLToPath } from 'node:url';
import nodePlop from 'node-plop';
import type { Database } from '../generators/app/options.js';

const plopfile = fileURLToPath(new URL('../plopfile.ts', import.meta.url));

/** The sample Product spec shipped with slicekit. */
export const productSpec = fileURLToPath(new URL('../docs/examples/product.yaml', import.meta.url));

/** The shop example's specs (Customer, Order, OrderLine, Tag), generated together. */
export const shopSpecs = fileURLToPath(new URL('../docs/examples/shop/', import.meta.url));

/** The secure shop: the shop's entities per tenant, with roles, soft delete and PATCH. */
export const shopSecureSpecs = fileURLToPath(
  new URL('../docs/examples/shop-secure/', import.meta.url),
);

interface RunResult {
  changes: { type: string; path: string }[];
  failures: { type: string; path: string; error?: string; message?: string }[];
}

function check(what: string, result: RunResult): RunResult {
  const failure = result.failures[0];
  if (failure) {
    throw new Error(`${what} failed: ${failure.error ?? failure.message ?? failure.path}`);
  }
  return result;
}

/** What `generateApp` creates. */
export interface GenerateAppOptions {
  /** Folder of the new app; it must be missing or empty. */
  directory: string;
  /** npm package name of the app. */
  name: string;
  /** @default 'sqlite' */
  database?: Database;
}

/** Generates an app, without `npm install` (inside this checkout it needs none). */
export async function generateApp(options: GenerateAppOptions): Promise<void> {
  const plop = await nodePlop(plopfile, { destBasePath: options.directory, force: false });
  const answers = { database: 'sqlite', ...options, install: false };
  check('the app generator', (await plop.getGenerator('app').runActions(answers)) as RunResult);
}

/** How `addEntity` runs the entity generator. */
export interface AddEntityOptions {
  /** Overwrite files that exist. @default false */
  force?: boolean;
  /** Time stamp of the migration, so the same app generated again migrates the same database. */
  now?: string;
}

/** Adds the entity a spec file describes to the app in `appDirectory`. */
export async function addEntity(
  appDirectory: string,
  specFile: string,
  options: AddEntityOptions = {},
): Promise<void> {
  const force = options.force ?? false;
  const plop = await nodePlop(plopfile, { destBasePath: appDirectory, force });
  const answers = { specFile, force, ...(options.now ? { now: options.now } : {}) };
  check(
    `the entity generator (${specFile})`,
    (await plop.getGenerator('entity').runActions(answers)) as RunResult,
  );
}

/** Which database a `DATABASE_URL` names: a server URL, or else a SQLite file. */
export function databaseOf(url: string): Database {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^mysql:\/\//i.test(url)) return 'mysql';
  return 'sqlite';
}
