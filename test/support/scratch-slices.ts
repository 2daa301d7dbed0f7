// Generated slices for a test: the entity generator writes them into a scratch folder inside the
// checkout (so they resolve @slicekit/runtime and express from its node_modules), then a suite
// migrates them on its database and mounts them on Express, as a generated app does.
import { expect } from 'chai';
import express, { type Express, type Router } from 'express';
import type { Knex } from 'knex';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import nodePlop from 'node-plop';
import { discoverSlices, type CrudLogger } from '@slicekit/runtime/crud';
import { outboxMigration } from '@slicekit/runtime/events';
import { registerEntityGenerator } from '../../generators/entity/index.js';
import { uniqueName } from './services.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A logger that drops everything. */
export const silentLogger: CrudLogger = { info() {}, warn() {}, error() {}, debug() {} };

/** A scratch app folder with the slices of `answers` (entity generator answers, in order). */
export interface ScratchSlices {
  readonly dir: string;
  /** Runs every generated migration (in name order) and the outbox migration on `knex`. */
  migrate(knex: Knex): Promise<void>;
  /** Mounts every slice on `router` with `knex` and `logger`. */
  mount(router: Router, knex: Knex, logger?: CrudLogger): Promise<void>;
  /** An Express app with JSON bodies and every slice under /v1, nothing else. */
  app(knex: Knex): Promise<Express>;
}

/**
 * Registers mocha hooks that generate the slices once before the file's tests and remove the
 * folder after them (`KEEP_E2E=1` keeps it).
 *
 * @example
 * const slices = useScratchSlices('products', [{ specFile: productSpec }]);
 * describeEachDatabase('...', (db) => { before(() => slices.migrate(db.knex)); ... });
 */
export function useScratchSlices(
  label: string,
  answers: readonly Record<string, unknown>[],
): ScratchSlices {
  const dir = join(repoRoot, '.work', uniqueName(label));
  before(async () => {
    mkdirSync(dir, { recursive: true });
    const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
    registerEntityGenerator(plop);
    for (const answer of answers) {
      const result = await plop
        .getGenerator('entity')
        .runActions({ now: '2024-05-01T09:30:00Z', ...answer });
      expect(result.failures).to.deep.equal([]);
    }
  });
  after(() => {
    if (process.env.KEEP_E2E !== '1') rmSync(dir, { recursive: true, force: true });
  });

  const mount = async (router: Router, knex: Knex, logger: CrudLogger = silentLogger) => {
    for (const slice of await discoverSlices(join(dir, 'src/slices'))) {
      slice.mount(router, { knex, logger });
    }
  };
  return {
    dir,
    async migrate(knex) {
      for (const file of readdirSync(join(dir, 'migrations')).sort()) {
        const migration = (await import(pathToFileURL(join(dir, 'migrations', file)).href)) as {
          up(knex: Knex): Promise<void>;
        };
        await migration.up(knex);
      }
      await outboxMigration().up(knex);
    },
    mount,
    async app(knex) {
      const app = express();
      app.use(express.json());
      const router = express.Router();
      await mount(router, knex);
      app.use('/v1', router);
      return app;
    },
  };
}
