// The two tarballs a release would publish, made once per test run by scripts/pack.ts (a clean
// build of each package) in a temporary folder outside the checkout, and unpacked for reading.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack, type PackedPackage } from '../../scripts/pack.js';

/** What a package.json of a packed package declares, as far as the tests read it. */
export interface PackedManifest {
  name: string;
  version: string;
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface UnpackedPackage extends PackedPackage {
  /** The unpacked `package/` folder. */
  dir: string;
  manifest: PackedManifest;
}

export interface Packed {
  /** The temporary folder holding the unpacked packages (removed when the process exits). */
  folder: string;
  runtime: UnpackedPackage;
  slicekit: UnpackedPackage;
}

let packed: Packed | undefined;

function unpack(tarball: PackedPackage, into: string): UnpackedPackage {
  mkdirSync(into, { recursive: true });
  const result = spawnSync('tar', ['-xzf', tarball.tarball, '-C', into], { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`tar could not unpack ${tarball.tarball}: ${result.stderr}`);
  const dir = join(into, 'package');
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackedManifest;
  return { ...tarball, dir, manifest };
}

/**
 * The tarballs of this test run. In `npm test` the global setup names a folder for the run
 * (SLICEKIT_TEST_PACK): the first suite to ask packs into it, holding its lock, and the suites of
 * the other worker wait for that result instead of packing again. Alone, a suite packs for itself.
 */
async function tarballs(): Promise<[PackedPackage, PackedPackage]> {
  const shared = process.env.SLICEKIT_TEST_PACK;
  if (!shared) {
    const folder = mkdtempSync(join(tmpdir(), 'slicekit-pack-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    return pack(folder);
  }
  const result = join(shared, 'packed.json');
  const failure = join(shared, 'failed.txt');
  let packer = true;
  try {
    mkdirSync(join(shared, 'lock'), { recursive: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    packer = false;
  }
  if (packer) {
    try {
      const packages = pack(join(shared, 'tarballs'));
      writeFileSync(`${result}.tmp`, JSON.stringify(packages));
      renameSync(`${result}.tmp`, result);
      return packages;
    } catch (error) {
      writeFileSync(failure, String((error as Error).stack ?? error));
      throw error;
    }
  }
  // Packing takes two clean TypeScript builds; the suite's own timeout bounds the wait.
  for (;;) {
    if (existsSync(result)) {
      return JSON.parse(readFileSync(result, 'utf8')) as [PackedPackage, PackedPackage];
    }
    if (existsSync(failure)) {
      throw new Error(
        `packing both packages failed in another suite:\n${readFileSync(failure, 'utf8')}`,
      );
    }
    await new Promise((done) => setTimeout(done, 250));
  }
}

/** Packs both packages (or waits for the run's tarballs) on the first call, unpacked for reading. */
export async function packPackages(): Promise<Packed> {
  if (!packed) {
    const [runtime, slicekit] = await tarballs();
    const folder = mkdtempSync(join(tmpdir(), 'slicekit-unpacked-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    packed = {
      folder,
      runtime: unpack(runtime, join(folder, 'runtime')),
      slicekit: unpack(slicekit, join(folder, 'slicekit')),
    };
  }
  return packed;
}

/** What `packPackages` made, once it has (in a `before` hook). */
export function packedPackages(): Packed {
  if (!packed) throw new Error('packPackages() has not run: call it in a before hook');
  return packed;
}
