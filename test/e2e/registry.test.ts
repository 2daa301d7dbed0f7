// The published form, proven: both packages packed as a release would publish them, published to
// a throwaway registry on 127.0.0.1, then a user's path in a folder outside the checkout with no
// path into it, on SQLite (and PostgreSQL when asked): `npx slicekit new shop --install`, the Product entity
// from its spec file, migrate, the app's tests, tsc, `npm run build` and `npm start` serving; then
// the app's Dockerfile run without Docker, as a user without privileges, and compose.yaml's
// migrate command and settings.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { productSpec } from '../../scripts/generate.js';
import { packPackages } from '../publish/packed.js';
import { uniqueName, useDatabase, type Dialect } from '../support/services.js';
import { deleteStream, localSettings, readCompose } from './support/containers.js';
import { buildWithoutDocker, handOver, unprivileged } from './support/dockerfile.js';
import { freePort, run, serve } from './support/processes.js';
import {
  betterSqlitePrebuild,
  npmConfig,
  pingRegistry,
  publish,
  runCache,
  seedNpmCache,
  startRegistry,
  userEnv,
  type LocalRegistry,
  type UserEnvironment,
} from './support/registry.js';
import { repoRoot } from './support/workspace.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

// SQLite by default: its driver is the one native addon an install must build or fetch, and the
// image gets a data folder. The app's code and the packages' files are the same for PostgreSQL,
// whose run adds about six minutes; REGISTRY_DATABASES=sqlite,postgres runs it too (the compose
// settings of a database service).
const databases = (process.env.REGISTRY_DATABASES ?? 'sqlite')
  .split(',')
  .map((name) => name.trim()) as ('sqlite' | 'postgres')[] satisfies Dialect[];
for (const name of databases) {
  if (name !== 'sqlite' && name !== 'postgres') {
    throw new Error(`REGISTRY_DATABASES: "${name}" is not sqlite or postgres`);
  }
}

/** Seconds each step took, printed at the end so CI logs show where the time goes. */
const timings: [string, number][] = [];
async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings.push([step, (Date.now() - started) / 1000]);
  }
}

describe('the published form, installed from a local registry', function () {
  this.timeout(20 * 60_000);
  let home: string;
  let registry: LocalRegistry | undefined;
  let setup: UserEnvironment;
  let version: string;

  before(async function () {
    // The registry npm is set up with is a service like the databases: skipped loudly when it
    // does not answer, a failure under REQUIRE_SERVICES=1.
    const uplink = npmConfig('registry');
    const unreachable = await pingRegistry(uplink);
    if (unreachable) {
      const line = `the npm registry at ${uplink} did not answer (${unreachable.message})`;
      if (process.env.REQUIRE_SERVICES === '1') {
        throw new Error(`${line}; REQUIRE_SERVICES=1 makes this a failure`);
      }
      console.error(`\n  !!! SKIPPING THE LOCAL-REGISTRY SUITE: ${line}.\n`);
      this.skip();
    }
    home = mkdtempSync(join(tmpdir(), 'slicekit-registry-'));
    expect(relative(repoRoot, home).startsWith('..'), `${home} is outside the checkout`).to.equal(
      true,
    );
    const { runtime, slicekit } = await timed('pack both packages', () => packPackages());
    version = slicekit.version;
    registry = await timed('start the registry', () => startRegistry(home, uplink));
    const prebuild = betterSqlitePrebuild(home);
    setup = { registry: registry.url, cache: runCache(home), extra: prebuild.env };
    console.log(
      prebuild.version
        ? `    better-sqlite3 ${prebuild.version}: the checkout's compiled binding is offered as its prebuilt file`
        : '    better-sqlite3: no compiled binding in the checkout, the app compiles its own',
    );
    await timed('publish both packages', async () => {
      await publish(registry!.url, runtime.tarball, home);
      await publish(registry!.url, slicekit.tarball, home);
    });
    // The user's copy of the Product spec, in their own folder.
    copyFileSync(productSpec, join(home, 'product.yaml'));
  });

  after(async () => {
    await registry?.stop();
    if (home && process.env.KEEP_E2E !== '1') rmSync(home, { recursive: true, force: true });
    console.log(
      `\n    local-registry timings: ${timings.map(([step, s]) => `${step} ${s.toFixed(1)} s`).join(', ')}\n`,
    );
  });

  for (const dialect of databases) {
    describe(`a new ${dialect} app`, () => {
      const db = dialect === 'postgres' ? useDatabase('postgres') : undefined;
      let folder: string;
      let app: string;
      const env = () => userEnv(setup, db ? { DATABASE_URL: db.url } : {});
      const step = (name: string, command: string, args: string[], cwd = app) =>
        timed(`${dialect}: ${name}`, () => run(command, args, { cwd, env: env() }));

      // Each step needs the one before: after a failure the rest are skipped, not failed again.
      let broken = false;
      beforeEach(function () {
        if (broken) this.skip();
      });
      afterEach(function () {
        if (this.currentTest?.state === 'failed') broken = true;
      });

      before(() => {
        folder = join(home, dialect);
        mkdirSync(folder);
        app = join(folder, 'shop');
      });

      it('answers `npx slicekit --version` and `--help` (npx installs slicekit)', async () => {
        const printed = await step(
          'npx slicekit --version',
          npx,
          ['slicekit', '--version'],
          folder,
        );
        expect(printed.trim().split('\n').at(-1)).to.equal(version);
        const help = await step('npx slicekit --help', npx, ['slicekit', '--help'], folder);
        expect(help).to.contain('Usage: slicekit new <dir> [options]');
      });

      it('is created and installed by `npx slicekit new shop --install`', async () => {
        const args = ['slicekit', 'new', 'shop', '--database', dialect, '--install'];
        const output = await step('npx slicekit new --install', npx, args, folder);
        expect(output).to.contain('Created shop in shop');
        expect(output).not.to.match(/not yet covered by allowScripts/);
      });

      it("depends on the registry's slicekit packages, with no path into the checkout", () => {
        const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
        expect(manifest.dependencies['@slicekit/runtime']).to.equal(`^${version}`);
        expect(manifest.devDependencies.slicekit).to.equal(`^${version}`);
        for (const file of ['package.json', 'package-lock.json']) {
          const text = readFileSync(join(app, file), 'utf8');
          expect(text, file).not.to.contain('file:');
          expect(text, file).not.to.contain(repoRoot);
        }
        for (const name of ['slicekit', '@slicekit/runtime']) {
          const installed = join(app, 'node_modules', name);
          expect(lstatSync(installed).isSymbolicLink(), `${name} is a link`).to.equal(false);
          expect(
            JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version,
          ).to.equal(version);
        }
      });

      it('runs only the install scripts it allows, and turns Scarf off', async () => {
        const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
        expect(manifest.allowScripts).to.deep.equal({
          '@scarf/scarf': false,
          ...(dialect === 'sqlite' ? { 'better-sqlite3': true } : {}),
          esbuild: false,
          protobufjs: false,
        });
        expect(manifest.scarfSettings).to.deep.equal({ enabled: false });
        const pending = await step('npm install-scripts ls', npm, ['install-scripts', 'ls']);
        expect(pending).to.contain('No packages with unreviewed install scripts');
      });

      it('adds the Product entity with `npx plop entity -- --spec`', async () => {
        await step('npx plop entity', npx, [
          'plop',
          'entity',
          '--',
          '--spec',
          '../../product.yaml',
        ]);
        expect(lstatSync(join(app, 'src/slices/products/index.ts')).isFile()).to.equal(true);
      });

      it('migrates, passes its own tests and type-checks', async () => {
        await step('npm run migrate', npm, ['run', 'migrate']);
        const output = await step('npm test', npm, ['test']);
        expect(output).to.match(/\d+ passing/);
        expect(output).not.to.match(/\d+ failing/);
        await step('npm run typecheck', npm, ['run', 'typecheck']);
      });

      it('builds, and `npm start` serves the Product routes', async () => {
        await step('npm run build', npm, ['run', 'build']);
        const port = await freePort();
        const server = await timed(`${dialect}: npm start`, () =>
          serve(npm, ['start'], {
            cwd: app,
            env: { ...env(), PORT: String(port), METRICS_PORT: '0' },
            port,
            probePath: '/v1/products',
          }),
        );
        try {
          const created = await fetch(`${server.url}/v1/products`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Desk lamp', price: 24.99 }),
          });
          expect(created.status, server.output()).to.equal(201);
          const list = await fetch(`${server.url}/v1/products?search=lamp`);
          expect(list.status).to.equal(200);
          expect(JSON.stringify(await list.json())).to.contain('Desk lamp');
        } finally {
          await server.stop();
        }
      });

      it("runs its Dockerfile's commands in a clean copy without privileges, and serves with compose.yaml's settings", async () => {
        // The image's file system, the user's home and npm cache: a folder that user can reach.
        const work = mkdtempSync(join(tmpdir(), 'slicekit-image-'));
        try {
          chmodSync(work, 0o755);
          const cache = join(work, 'npm-cache');
          seedNpmCache(join(app, 'package-lock.json'), setup.cache, cache);
          const extra = { ...setup.extra };
          const prebuilds = extra.npm_config_better_sqlite3_local_prebuilds;
          if (prebuilds) {
            cpSync(prebuilds, join(work, 'prebuilds'), { recursive: true });
            extra.npm_config_better_sqlite3_local_prebuilds = join(work, 'prebuilds');
          }
          const home = join(work, 'home');
          mkdirSync(home);
          handOver(work);
          const buildEnv = { ...userEnv({ registry: setup.registry, cache, extra }), HOME: home };
          const image = await timed(`${dialect}: the Dockerfile's RUN commands`, () =>
            buildWithoutDocker(app, join(work, 'image'), buildEnv),
          );
          expect(image.runs).to.deep.equal([
            'npm ci',
            'npm run build',
            ...(dialect === 'sqlite' ? ['mkdir -p data'] : []),
            'npm ci --omit=dev && npm cache clean --force',
          ]);
          // Production dependencies only: no compiler, no test runner, no slicekit itself.
          for (const name of ['typescript', 'tsx', 'mocha', 'slicekit']) {
            expect(existsSync(join(image.workdir, 'node_modules', name)), name).to.equal(false);
          }

          // The container's environment: the image's ENV, then what compose.yaml gives the
          // service, its hosts on this machine; the events go to a stream of this run's own.
          const compose = readCompose(app);
          const stream = uniqueName('EVENTS').toUpperCase();
          const port = await freePort();
          const metricsPort = await freePort();
          const containerEnv = (service: string): NodeJS.ProcessEnv => ({
            PATH: process.env.PATH,
            HOME: home,
            ...image.env,
            ...localSettings(compose, service, db ? { DATABASE_URL: db.url } : {}),
            PORT: String(port),
            METRICS_PORT: String(metricsPort),
            EVENTS_STREAM: stream,
            EVENTS_SUBJECT_PREFIX: stream.toLowerCase(),
            LOG_LEVEL: 'warn',
          });
          const [migrate, ...migrateWords] = compose.services.migrate!.command!;
          const [migrateCommand, migrateArgs] = unprivileged(migrate!, migrateWords);
          await timed(`${dialect}: compose's migrate command`, async () =>
            run(migrateCommand, migrateArgs, { cwd: image.workdir, env: containerEnv('migrate') }),
          );
          const env = containerEnv('app');
          const [command, args] = unprivileged(image.cmd[0]!, image.cmd.slice(1));
          const server = await serve(command, args, {
            cwd: image.workdir,
            env,
            port,
            probePath: '/health/live',
          });
          try {
            const [check, checkArgs] = unprivileged(
              image.healthcheck[0]!,
              image.healthcheck.slice(1),
            );
            const list = await fetch(`${server.url}/v1/products`);
            expect(list.status, server.output()).to.equal(200);
            await run(check, checkArgs, { cwd: image.workdir, env });
          } finally {
            await server.stop();
            await deleteStream(env.EVENTS_BROKER_URL ?? 'nats://127.0.0.1:4222', stream);
          }
        } finally {
          // The image's folders (two node_modules, an npm cache) took 40 s to remove on an idle
          // machine: removed in the background, nothing waits for it.
          spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
        }
      });
    });
  }
});
