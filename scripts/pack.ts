// `npm run pack`: the two tarballs a release publishes, slicekit-<version>.tgz and
// slicekit-runtime-<version>.tgz. Each package is built from a clean slate in a staging folder and
// packed there, so stale files in the working dist/ folders never ship and the working build is left
// alone. Usage: npm run pack [-- <destination>]   (default .work/pack)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runtimeDir = join(root, 'runtime');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** One packed package, as `npm pack --json` describes it. */
export interface PackedPackage {
  name: string;
  version: string;
  /** Absolute path of the tarball. */
  tarball: string;
  /** Paths inside the package, e.g. `dist/index.js`. */
  files: string[];
  /** Bytes of the tarball. */
  size: number;
  unpackedSize: number;
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${output.slice(-6000)}`);
  }
  return result.stdout;
}

interface Manifest {
  name: string;
  version: string;
  files?: string[];
}

/**
 * Copies what npm packs from `packageDir` besides `dist/` (the manifest, README and LICENSE, and
 * every other `files` entry) into `target`; npm applies the `files` patterns again when packing.
 */
function stage(packageDir: string, target: string): Manifest {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;
  mkdirSync(target, { recursive: true });
  const entries = ['package.json', 'README.md', 'LICENSE', ...(manifest.files ?? [])];
  for (const entry of entries) {
    if (entry.startsWith('!') || entry === 'dist' || !existsSync(join(packageDir, entry))) continue;
    cpSync(join(packageDir, entry), join(target, entry), { recursive: true });
  }
  return manifest;
}

function newestChange(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/**
 * Compiles the runtime to runtime/dist when its sources changed since the last build. The
 * generators and compiled apps type-check against its declarations (the package's `types`);
 * `npm install` makes the build, this catches later edits.
 */
export function ensureRuntimeBuild(): void {
  const dist = join(runtimeDir, 'dist');
  if (existsSync(dist) && newestChange(dist) >= newestChange(join(runtimeDir, 'src'))) return;
  run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], runtimeDir);
}

function npmPack(dir: string, destination: string): PackedPackage {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // --ignore-scripts: the staged folder holds the build already and no sources to build from.
  const [packed] = JSON.parse(
    run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], dir),
  ) as {
    name: string;
    version: string;
    filename: string;
    files: { path: string }[];
    size: number;
    unpackedSize: number;
  }[];
  if (!packed) throw new Error(`npm pack in ${dir} reported nothing`);
  return {
    name: packed.name,
    version: packed.version,
    tarball: join(destination, packed.filename),
    files: packed.files.map((file) => file.path).sort(),
    size: packed.size,
    unpackedSize: packed.unpackedSize,
  };
}

/**
 * Builds and packs both packages into `destination`; returns the runtime first, then slicekit.
 *
 * @example
 * const [runtime, slicekit] = await pack('.work/pack');
 */
export function pack(destination: string): [PackedPackage, PackedPackage] {
  const target = resolve(destination);
  mkdirSync(target, { recursive: true });
  // Staged inside the checkout whatever the destination: the build steps run the just-built
  // generators (scripts/copy-templates.js), whose imports resolve through the checkout's
  // node_modules.
  mkdirSync(join(root, '.work'), { recursive: true });
  const staging = mkdtempSync(join(root, '.work', 'staging-'));
  try {
    const runtime = join(staging, 'runtime');
    stage(runtimeDir, runtime);
    run(
      process.execPath,
      // No source maps: they would point at src/, which is not published.
      [tsc, '-p', 'tsconfig.build.json', '--outDir', join(runtime, 'dist')].concat([
        '--sourceMap',
        'false',
        '--declarationMap',
        'false',
      ]),
      runtimeDir,
    );

    const slicekit = join(staging, 'slicekit');
    stage(root, slicekit);
    ensureRuntimeBuild();
    run(
      process.execPath,
      [tsc, '-p', 'tsconfig.build.json', '--outDir', join(slicekit, 'dist')],
      root,
    );
    run(
      process.execPath,
      [join(root, 'scripts', 'copy-templates.js'), join(slicekit, 'dist')],
      root,
    );

    return [npmPack(runtime, target), npmPack(slicekit, target)];
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(0)} kB`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = resolve(root, process.argv[2] ?? join('.work', 'pack'));
  for (const packed of pack(destination)) {
    console.log(
      `${packed.tarball}: ${packed.name}@${packed.version}, ${packed.files.length} files, ` +
        `${kB(packed.size)} (${kB(packed.unpackedSize)} unpacked)`,
    );
  }
}
