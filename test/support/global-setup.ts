// Loaded by `npm test` before any suite. mocha runs `mochaGlobalSetup` once, in its main process,
// before the workers of the parallel run start: a stale `runtime/dist` (sources edited since the
// last build) is rebuilt here, once, rather than by two suites in two workers at the same time.
import { ensureRuntimeBuild } from '../../scripts/pack.js';

export function mochaGlobalSetup(): void {
  ensureRuntimeBuild();
}
