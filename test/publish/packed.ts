// The two tarballs a release would publish, made once per test run by scripts/pack.ts (a clean
// build of each package) in a temporary folder outside the checkout, and unpacked for reading.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  /** The temporary folder holding the tarballs (removed when the test process exits). */
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

/** Packs both packages on the first call (about half a minute) and returns the same result after. */
export function packedPackages(): Packed {
  if (!packed) {
    const folder = mkdtempSync(join(tmpdir(), 'slicekit-pack-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    const [runtime, slicekit] = pack(folder);
    packed = {
      folder,
      runtime: unpack(runtime, join(folder, 'runtime')),
      slicekit: unpack(slicekit, join(folder, 'slicekit')),
    };
  }
  return packed;
}
