// Loaded by `npm test` before any suite, in the main process and in each worker. mocha runs
// `mochaGlobalSetup` once, in its main process, before the workers of the parallel run start: a
// stale `runtime/dist` (sources edited since the last build) is rebuilt here, once, rather than by
// two suites in two workers at the same time.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRuntimeBuild } from '../../scripts/pack.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export function mochaGlobalSetup(): void {
  ensureRuntimeBuild();
  // The folder of this run's packed tarballs (test/publish/packed.ts): the workers, started after
  // this, inherit it, and the first suite that needs the tarballs packs them there for all.
  process.env.SLICEKIT_TEST_PACK = mkdtempSync(join(tmpdir(), 'slicekit-pack-'));
}

export function mochaGlobalTeardown(): void {
  const folder = process.env.SLICEKIT_TEST_PACK;
  if (folder) rmSync(folder, { recursive: true, force: true });
}

// Every app process a suite starts would otherwise serve metrics on the default port 9464, and
// two suites running side by side would collide there: the suites that read metrics give their
// processes a port of their own.
process.env.METRICS_PORT ??= '0';

// SUITE_TIMES=<file> npm test: each test file appends "<seconds> <path>" to <file> once its tests
// ran (each file runs alone in a worker, with these hooks around it), the measure by which
// `npm test` orders the files: `node scripts/suite-times.js <file>` writes it to
// test/support/suite-times.json.
const timesFile = process.env.SUITE_TIMES;
let started = 0;
export const mochaHooks = timesFile
  ? {
      beforeAll(): void {
        started = performance.now();
      },
      afterAll(this: Mocha.Context): void {
        const files = new Set(this.test?.parent?.suites.map((suite) => suite.file));
        const [file] = files;
        if (files.size !== 1 || !file) return;
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        appendFileSync(timesFile, `${seconds} ${relative(repoRoot, file).split(sep).join('/')}\n`);
      },
    }
  : {};
