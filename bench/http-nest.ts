// The NestJS peer of bench/http.ts, set up in a folder of its own outside this project
// (BENCH_NEST_DIR, by default <tmp>/slicekit-bench-http-nest, apart from bench:generate's CLI), kept between runs: the Nest CLI, then
// `nest new` and `nest g resource products` (REST, CRUD entry points), TypeORM and the drivers
// added, the generated files replaced by the filled-in ones of bench/http-nest/src, and a build.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './http-apps.js';

const home = process.env.BENCH_NEST_DIR ?? join(tmpdir(), 'slicekit-bench-http-nest');
export const nestDir = join(home, 'nest-peer');

function run(command: string, args: string[], cwd: string): void {
  const plain = { ...process.env };
  delete plain.NODE_OPTIONS;
  const done = spawnSync(command, args, { cwd, env: plain, encoding: 'utf8' });
  if (done.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed:\n${done.stdout}${done.stderr}`);
  }
}

/** The peer, built; its start is `node dist/main.js` in `nestDir`. */
export function buildNest(): void {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const cli = join(home, 'cli');
  const nest = join(cli, 'node_modules', '.bin', 'nest');
  if (!existsSync(nest)) {
    console.log(`NestJS peer: installing the Nest CLI into ${cli}...`);
    mkdirSync(cli, { recursive: true });
    writeFileSync(join(cli, 'package.json'), '{"private":true}\n');
    run(npm, ['install', '--no-audit', '--no-fund', '@nestjs/cli@11'], cli);
  }
  if (!existsSync(join(nestDir, 'node_modules', 'typeorm'))) {
    console.log(`NestJS peer: nest new, nest g resource and TypeORM into ${nestDir}...`);
    if (!existsSync(join(nestDir, 'package.json'))) {
      run(nest, ['new', 'nest-peer', '--skip-install', '--skip-git', '-p', 'npm'], home);
    }
    // Answers the generator's questions (transport, CRUD entry points) from the command line.
    if (!existsSync(join(nestDir, 'src', 'products'))) {
      run(nest, ['g', 'resource', 'products', '--no-spec', '--type', 'rest', '--crud'], nestDir);
    }
    run(
      npm,
      ['install', '--no-audit', '--no-fund', '@nestjs/typeorm@11', 'typeorm@0.3', 'pg', 'mysql2'],
      nestDir,
    );
  }
  cpSync(join(root, 'bench', 'http-nest', 'src'), join(nestDir, 'src'), { recursive: true });
  run(nest, ['build'], nestDir);
}
