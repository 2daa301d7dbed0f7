// The app generator's own Plop actions: refuse a folder in use, make slicekit resolvable for an app
// inside this checkout, and run `npm install` when asked.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { CustomActionFunction } from 'plop';
import type { AppTemplateData } from './options.js';
import { isInside, packageRoot } from './paths.js';

/** Fails when the target folder exists and holds anything, so no file of the user is replaced. */
export function checkTargetFolder(data: AppTemplateData): CustomActionFunction {
  // Async, so that node-plop reports a throw as a failure with its message.
  return async function checkTargetFolder() {
    if (!existsSync(data.directory)) return `creating ${data.name} in ${data.directory}`;
    if (!statSync(data.directory).isDirectory()) {
      throw new Error(`${data.directory} exists and is a file: choose a new folder name`);
    }
    if (readdirSync(data.directory).length > 0) {
      throw new Error(
        `${data.directory} is not empty: choose a new folder, or empty this one first`,
      );
    }
    return `creating ${data.name} in ${data.directory}`;
  };
}

/**
 * An app generated inside this checkout runs without `npm install`: Node finds express, knex and
 * the runtime in the checkout's node_modules by walking up, and this link lets the app's
 * plopfile import `slicekit/plop` the same way an installed app would.
 */
export function linkSlicekit(data: AppTemplateData): CustomActionFunction {
  return async function linkSlicekit() {
    if (data.install || !isInside(data.directory, packageRoot)) {
      return 'slicekit comes from npm install';
    }
    const link = join(data.directory, 'node_modules', 'slicekit');
    if (existsSync(link)) return `${link} exists`;
    mkdirSync(join(data.directory, 'node_modules'), { recursive: true });
    symlinkSync(packageRoot, link, 'junction');
    return `linked ${link} -> ${packageRoot}`;
  };
}

/** Runs `npm install` in the new app, showing npm's output. */
export function installDependencies(data: AppTemplateData): CustomActionFunction {
  return async function installDependencies() {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = spawnSync(npm, ['install'], {
      cwd: data.directory,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
    if (result.status !== 0) {
      throw new Error(`npm install failed in ${data.directory}; run it there again to see why`);
    }
    return 'installed the dependencies';
  };
}
