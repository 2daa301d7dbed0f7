// One generated app per database for the feature suites: it holds the fixture entities of every
// area (test/generators/fixtures/<area>/*.yaml), and its own `npm test` runs once per database
// for all of them; each area's suite reads the lines it expects from that one output. Adding an
// entity to an area is adding its spec file to the area's folder (and the lines to the suite).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateApp } from './generated-app.js';
import { run } from '../../e2e/support/processes.js';
import { appEnv, scratchFolder } from '../../e2e/support/workspace.js';
import {
  requireService,
  serviceUrls,
  uniqueName,
  withDatabase,
  type Dialect,
} from '../../support/services.js';

/** The areas whose fixture folders the app gets, in this order (a later one may refer to an earlier). */
export const featureAreas = ['access', 'rules'] as const;

export const featureDatabases: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

export interface FeatureApp {
  /** The app's folder for `database`. */
  dir(database: Dialect): string;
  /**
   * What the app's own `npm test` printed on `database`: run once per database, on a database of
   * its own, whichever test asks first; rejects with the output when a test of the app failed.
   * Skips the calling test when the database's server does not answer (as `requireService`).
   */
  testOutput(context: Mocha.Context, database: Dialect): Promise<string>;
}

/** Registers hooks that generate the app for each database before the file's tests. */
export function useFeatureApp(): FeatureApp {
  let scratch: ReturnType<typeof scratchFolder> | undefined;
  const outputs = new Map<Dialect, Promise<string>>();
  const dir = (database: Dialect) => {
    if (!scratch) throw new Error('the feature app has not been generated');
    return join(scratch.path, database);
  };

  before(async function () {
    this.timeout(120_000);
    scratch = scratchFolder('feature-app');
    const specFile = featureAreas.map((area) => join(fixtures, area));
    for (const database of featureDatabases) {
      await generateApp(dir(database), { name: 'library', database, specFile });
    }
  });
  after(() => scratch?.remove());

  return {
    dir,
    async testOutput(context, database) {
      if (database !== 'sqlite') await requireService(context, database);
      let output = outputs.get(database);
      if (!output) {
        const url =
          database === 'sqlite'
            ? undefined
            : withDatabase(serviceUrls[database], uniqueName('features'));
        output = run('npm', ['test'], {
          cwd: dir(database),
          env: appEnv(url ? { DATABASE_URL: url } : {}),
        });
        outputs.set(database, output);
      }
      return output;
    },
  };
}
