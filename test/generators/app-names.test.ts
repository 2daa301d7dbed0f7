// The app generator over a matrix of names and databases: what a name fills in (the package name,
// the database name in the default DATABASE_URL) must not break the app's own checks. Every app
// passes its lint (ESLint and Prettier) and type check; the generated tests run for one name per
// database, on the database its name gives.
import { expect } from 'chai';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import { requireService, serviceUrls, withDatabase, type Dialect } from '../support/services.js';
import { run } from '../e2e/support/processes.js';
import { appEnv, repoRoot, scratchFolder } from '../e2e/support/workspace.js';
import { eslintErrors, prettierErrors, typeErrors } from './support/app-checks.js';

const names = [
  'shop',
  // Eight characters and more: the end-to-end tests' `shop` hid a long default DATABASE_URL line.
  'evo-shop',
  'inventory-and-warehouse-management-admin',
  'b2b-shop-2024',
];
const databases: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];
/** The app whose generated tests run, per database: each name but `shop` once. */
const testedName: Record<Dialect, string> = {
  sqlite: 'b2b-shop-2024',
  postgres: 'inventory-and-warehouse-management-admin',
  mysql: 'evo-shop',
};

describe('apps generated for every name and database', function () {
  this.timeout(120_000);
  let scratch: ReturnType<typeof scratchFolder>;
  // Apps inside the checkout need no npm install; they share its node_modules.
  const appDir = (name: string, database: Dialect) => join(scratch.path, database, name);

  before(async () => {
    scratch = scratchFolder('app-names');
    const plop = await nodePlop(join(repoRoot, 'plopfile.ts'), {
      destBasePath: repoRoot,
      force: false,
    });
    for (const database of databases) {
      for (const name of names) {
        const { failures } = await plop
          .getGenerator('app')
          .runActions({ name, directory: appDir(name, database), database, install: false });
        expect(failures, `${name} on ${database}`).to.deep.equal([]);
      }
    }
  });
  after(() => scratch?.remove());

  for (const database of databases) {
    for (const name of names) {
      it(`${name} on ${database}: npm run lint passes`, async () => {
        const app = appDir(name, database);
        expect(await eslintErrors(app), 'eslint .').to.deep.equal([]);
        expect(await prettierErrors(app), 'prettier --check .').to.deep.equal([]);
      });
    }
  }

  it('every app: npm run typecheck passes', () => {
    const apps = databases.flatMap((database) => names.map((name) => appDir(name, database)));
    const errors = typeErrors(apps);
    expect(
      apps.filter((app) => errors.get(app)!.length > 0).map((app) => [app, errors.get(app)]),
    ).to.deep.equal([]);
  });

  for (const database of databases) {
    const name = testedName[database];
    it(`${name} on ${database}: npm test passes on the database its name gives`, async function () {
      if (database !== 'sqlite') await requireService(this, database);
      // The server and credentials of this run, and the database name the app chose itself.
      const url =
        database === 'sqlite'
          ? undefined
          : withDatabase(serviceUrls[database], name.replaceAll('-', '_'));
      const output = await run('npm', ['test'], {
        cwd: appDir(name, database),
        env: appEnv(url ? { DATABASE_URL: url } : {}),
      });
      expect(output).to.match(/\d+ passing/);
      expect(output).not.to.match(/\d+ failing/);
    });
  }
});
