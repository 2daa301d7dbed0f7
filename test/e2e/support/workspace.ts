// Where end-to-end apps are generated (inside the checkout, so they need no npm install) and the
// environment their commands run with.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A fresh folder under the git-ignored `.work/e2e/`; `KEEP_E2E=1` keeps it for a post-mortem. */
export function scratchFolder(label: string): { path: string; remove(): void } {
  const path = join(repoRoot, '.work', 'e2e', `${label}-${randomBytes(3).toString('hex')}`);
  mkdirSync(path, { recursive: true });
  return {
    path,
    remove() {
      if (process.env.KEEP_E2E !== '1') rmSync(path, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of an app's commands. The app and the runtime run from this checkout's
 * TypeScript sources (the `slicekit-source` condition), so the test sees the code as it is now;
 * a published app runs the same files compiled.
 */
export function appEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_OPTIONS: '--conditions=slicekit-source',
    LOG_LEVEL: 'warn',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** The environment of plain commands (plop, the bin): no loader and no condition, as a user has. */
export function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

/** Compiles the runtime to `runtime/dist` when its sources changed since the last build. */
export { ensureRuntimeBuild as ensureRuntimeBuilt } from '../../../scripts/pack.js';
