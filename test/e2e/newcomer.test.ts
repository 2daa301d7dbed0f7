// The newcomer's path, end to end, on SQLite, PostgreSQL and MySQL: a new app, an entity from plop
// bypass arguments and the Product entity from a spec file, migrate, seed, the app's own tests,
// tsc, lint, then the compiled server answering the spec's Product scenarios over HTTP.
import { expect } from 'chai';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { productSpec } from '../../scripts/generate.js';
import { allDialects, useDatabase } from '../support/services.js';
import { freePort, run, serve, type Served } from './support/processes.js';
import { describeProductScenarios } from './support/product-scenarios.js';
import {
  appEnv,
  ensureRuntimeBuilt,
  plainEnv,
  repoRoot,
  scratchFolder,
} from './support/workspace.js';

const node = process.execPath;
const bin = (path: string) => join(repoRoot, 'node_modules', path);

for (const dialect of allDialects) {
  describe(`newcomer's path on ${dialect}`, function () {
    this.timeout(120_000);
    const db = useDatabase(dialect);
    let scratch: ReturnType<typeof scratchFolder>;
    let app: string;
    let server: Served | undefined;
    const env = () => appEnv({ DATABASE_URL: db.url });

    before(() => {
      scratch = scratchFolder(dialect);
      app = join(scratch.path, 'shop');
    });
    after(async () => {
      await server?.stop();
      scratch?.remove();
    });

    it('creates the app with `slicekit new`', async () => {
      await run(
        node,
        [join(repoRoot, 'bin/slicekit.js'), 'new', app, '--database', dialect, '-y'],
        {
          cwd: scratch.path,
          env: plainEnv(),
        },
      );
      expect(existsSync(join(app, 'src/app.ts'))).to.equal(true);
    });

    it('adds an entity from plop bypass arguments', async () => {
      await run(node, [bin('plop/bin/plop.js'), 'entity', '--', ...customerBypass], {
        cwd: app,
        env: plainEnv(),
      });
      expect(readdirSync(join(app, 'src/slices'))).to.include('customers');
    });

    it('adds the Product entity from the spec file', async () => {
      await run(node, [bin('plop/bin/plop.js'), 'entity', '--', '--spec', productSpec], {
        cwd: app,
        env: plainEnv(),
      });
      expect(readdirSync(join(app, 'src/slices'))).to.include('products');
    });

    it('migrates and seeds the database', async () => {
      await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
      await run('npm', ['run', 'seed'], { cwd: app, env: env() });
      const [{ count }] = (await db.knex('products').count({ count: '*' })) as [{ count: unknown }];
      expect(Number(count)).to.be.greaterThan(0);
    });

    it("passes the app's own generated tests", async () => {
      const output = await run('npm', ['test'], { cwd: app, env: env() });
      expect(output).to.match(/\d+ passing/);
      expect(output).not.to.match(/\d+ failing/);
    });

    it('type-checks with tsc --noEmit', async () => {
      await run(
        node,
        [bin('typescript/bin/tsc'), '--noEmit', '--customConditions', 'slicekit-source'],
        {
          cwd: app,
          env: env(),
        },
      );
    });

    if (dialect === 'sqlite') {
      it('is clean for the ESLint and Prettier configs it ships', async () => {
        await run(node, [bin('eslint/bin/eslint.js'), '.'], { cwd: app, env: env() });
        await run(node, [bin('prettier/bin/prettier.cjs'), '--check', '.'], {
          cwd: app,
          env: env(),
        });
      });
    }

    it('serves: the server migrates, listens on PORT and answers 404 problem+json', async () => {
      const port = await freePort();
      server = await serve(node, ['--import', 'tsx', 'src/server.ts'], {
        cwd: app,
        env: { ...env(), PORT: String(port) },
        port,
        probePath: '/v1/products',
      });
      const res = await fetch(`${server.url}/v1/nothing-here`);
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    });

    if (dialect === 'sqlite') {
      it('builds with npm run build, and npm start serves the compiled app', async () => {
        await ensureRuntimeBuilt();
        await run('npm', ['run', 'build'], { cwd: app, env: env() });
        const port = await freePort();
        const compiled = await serve('npm', ['start'], {
          cwd: app,
          // The same database the tsx server migrated: the compiled migrations are already applied.
          env: { ...plainEnv(), DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'warn' },
          port,
          probePath: '/v1/products',
        });
        try {
          const res = await fetch(`${compiled.url}/v1/products`);
          expect(res.status).to.equal(200);
        } finally {
          await compiled.stop();
        }
      });
    }

    describeProductScenarios(() => {
      if (!server) throw new Error('the server did not start');
      return server.url;
    });
  });
}

// A second entity described entirely by bypass arguments, as a script would add one.
const customerBypass = [
  ...['--name', 'Customer', '--fields', 'email:string(200)!, displayName:string'],
  ...['--updates', 'Rename(displayName)'],
];
