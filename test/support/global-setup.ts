// Loaded by `npm test` before any suite, in the main process and in each worker. mocha runs
// `mochaGlobalSetup` once, in its main process, before the workers of the parallel run start: a
// stale `runtime/dist` (sources edited since the last build) is rebuilt here, once, rather than by
// two suites in two workers at the same time.
import { ensureRuntimeBuild } from '../../scripts/pack.js';

export function mochaGlobalSetup(): void {
  ensureRuntimeBuild();
}

// Every app process a suite starts would otherwise serve metrics on the default port 9464, and
// two suites running side by side would collide there: the suites that read metrics give their
// processes a port of their own.
process.env.METRICS_PORT ??= '0';
