// `slicekit new`: flags answer every prompt, mistakes exit non-zero with a message, and the
// compiled generators that npm publishes load on plain Node.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { productSpec } from '../../scripts/generate.js';
import { plainEnv, scratchFolder } from '../e2e/support/workspace.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/slicekit.js');

function slicekit(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    env: plainEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('slicekit new', () => {
  let scratch: ReturnType<typeof scratchFolder>;
  before(() => {
    scratch = scratchFolder('cli');
  });
  after(() => scratch?.remove());

  it('creates an app from flags alone, asking nothing', () => {
    const result = slicekit(
      scratch.path,
      'new',
      'orders-api',
      '--database',
      'mysql',
      '--no-install',
    );
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('Created orders-api in orders-api');
    const manifest = JSON.parse(
      readFileSync(join(scratch.path, 'orders-api/package.json'), 'utf8'),
    );
    expect(manifest.name).to.equal('orders-api');
    expect(manifest.dependencies).to.have.property('mysql2');
    expect(existsSync(join(scratch.path, 'orders-api/node_modules'))).to.equal(true);
  });

  it('writes .gitignore and no stray gitignore when run from outside the checkout', () => {
    // The usual `npx slicekit new` case: the working folder is not slicekit's.
    const outside = mkdtempSync(join(tmpdir(), 'slicekit-outside-'));
    try {
      const target = join(outside, 'shop');
      const result = slicekit(tmpdir(), 'new', target, '--no-install', '--yes');
      expect(result.status, result.stderr).to.equal(0);
      expect(existsSync(join(target, '.gitignore'))).to.equal(true);
      expect(existsSync(join(target, 'gitignore'))).to.equal(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('prints its usage with --help', () => {
    const result = slicekit(scratch.path, '--help');
    expect(result.status).to.equal(0);
    expect(result.stdout).to.contain('Usage: slicekit new <dir> [options]');
  });

  it('prints the version of its package.json with --version and -v', () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const result = slicekit(scratch.path, flag);
      expect(result.status).to.equal(0);
      expect(result.stdout.trim()).to.equal(version);
    }
  });

  it('exits 1 naming the folder when it exists and is not empty, or is a file, and writes nothing', () => {
    const used = join(scratch.path, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'notes.txt'), 'mine');
    const busy = slicekit(scratch.path, 'new', 'used', '-y');
    expect(busy.status).to.equal(1);
    expect(busy.stderr).to.contain('used already exists and is not empty');
    expect(readdirSync(used)).to.deep.equal(['notes.txt']);
    const file = slicekit(scratch.path, 'new', 'used/notes.txt', '-y');
    expect(file.status).to.equal(1);
    expect(file.stderr).to.contain('used/notes.txt exists and is a file');
  });

  it('creates the app in an existing empty folder', () => {
    mkdirSync(join(scratch.path, 'empty'));
    const result = slicekit(scratch.path, 'new', 'empty', '--no-install', '-y');
    expect(result.status, result.stderr).to.equal(0);
    expect(existsSync(join(scratch.path, 'empty/package.json'))).to.equal(true);
  });

  it('exits 2 with the usage for an unknown command or flag', () => {
    for (const args of [
      ['create', 'x'],
      ['new', 'x', '--colour', 'red'],
    ]) {
      const result = slicekit(scratch.path, ...args);
      expect(result.status).to.equal(2);
      expect(result.stderr).to.contain('Usage: slicekit new');
    }
  });

  it('exits 1 naming the fix for an unsupported database, and writes nothing', () => {
    const result = slicekit(scratch.path, 'new', 'legacy', '--database', 'oracle', '-y');
    expect(result.status).to.equal(1);
    expect(result.stderr).to.contain(
      '"oracle" is not a supported database: choose sqlite, postgres, mysql',
    );
    expect(existsSync(join(scratch.path, 'legacy'))).to.equal(false);
  });

  it('runs the compiled generators (what npm publishes) on plain Node: an app, then Product', function () {
    // A whole build of the generators, then two generator runs in a process of their own.
    this.timeout(120_000);
    const outDir = join(scratch.path, 'dist');
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    for (const args of [
      [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir],
      [join(root, 'scripts/copy-templates.js'), outDir],
    ]) {
      const step = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
      expect(step.status, step.stdout + step.stderr).to.equal(0);
    }
    const app = join(scratch.path, 'compiled-app');
    const script = `
      const { default: nodePlop } = await import('node-plop');
      const { default: slicekit } = await import(${JSON.stringify(join(outDir, 'plopfile.js'))});
      const check = ({ failures }) => { if (failures.length) throw new Error(JSON.stringify(failures)); };
      const root = await nodePlop();
      slicekit(root);
      check(await root.getGenerator('app').runActions({ name: 'shop', directory: ${JSON.stringify(app)} }));
      const inApp = await nodePlop(undefined, { destBasePath: ${JSON.stringify(app)} });
      slicekit(inApp);
      check(await inApp.getGenerator('entity').runActions({ specFile: ${JSON.stringify(productSpec)} }));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: scratch.path,
      env: plainEnv(),
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(existsSync(join(app, 'src/app.ts'))).to.equal(true);
    expect(existsSync(join(app, 'src/slices/products/index.ts'))).to.equal(true);
  });
});
