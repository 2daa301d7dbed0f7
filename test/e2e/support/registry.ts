// A throwaway npm registry on 127.0.0.1 (verdaccio) for the published-form test: it holds the
// packed slicekit packages and fetches every other package from the registry npm is set up with.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { freePort, run, serve, type Served } from './processes.js';
import { repoRoot } from './workspace.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A setting as npm resolves it in this checkout (user and global config included). */
export function npmConfig(key: string): string {
  const result = spawnSync(npm, ['config', 'get', key], { cwd: repoRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm config get ${key} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** Resolves to the error when the registry at `url` does not answer its ping within 10 s. */
export async function pingRegistry(url: string): Promise<Error | undefined> {
  try {
    const res = await fetch(new URL('-/ping', url), { signal: AbortSignal.timeout(10_000) });
    return res.ok ? undefined : new Error(`HTTP ${res.status}`);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts verdaccio with its storage in `folder`. Packages named `slicekit` and `@slicekit/*` exist
 * only here (publishing them needs no account); every other package comes from `uplink`.
 */
export async function startRegistry(folder: string, uplink: string): Promise<LocalRegistry> {
  const config = join(folder, 'verdaccio.yaml');
  const own = '{ access: $all, publish: $all, unpublish: $all }';
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(folder, 'storage'))}`,
      'uplinks:',
      '  upstream:',
      `    url: ${JSON.stringify(uplink)}`,
      // Package documents stay fresh for the whole run; tarballs are not stored twice (npm's
      // cache holds them).
      '    maxage: 60m',
      '    cache: false',
      'packages:',
      `  'slicekit': ${own}`,
      `  '@slicekit/*': ${own}`,
      "  '**': { access: $all, proxy: upstream }",
      'web: { enable: false }',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const bin = join(
    dirname(createRequire(import.meta.url).resolve('verdaccio/package.json')),
    'bin',
    'verdaccio',
  );
  const port = await freePort();
  const served: Served = await serve(
    process.execPath,
    [bin, '--config', config, '--listen', `127.0.0.1:${port}`],
    { cwd: folder, port, probePath: '/-/ping' },
  );
  return { url: `${served.url}/`, output: served.output, stop: served.stop };
}

/**
 * better-sqlite3 installs by downloading a prebuilt binding, or compiles one from source (minutes)
 * when it cannot, as on machines that reach no download host. The checkout's own install compiled
 * the same version already: offered as that prebuilt file (prebuild-install's local prebuilds),
 * the app's install unpacks it and checks that it loads instead of compiling it again. Returns
 * the variables that point prebuild-install at it, or none when the checkout has no binding.
 */
export function betterSqlitePrebuild(folder: string): { env: NodeJS.ProcessEnv; version?: string } {
  const dir = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  const binding = join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(binding)) return { env: {} };
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const prebuilds = join(folder, 'prebuilds');
  mkdirSync(prebuilds, { recursive: true });
  const { platform, arch, versions } = process;
  const name = `better-sqlite3-v${version}-node-v${versions.modules}-${platform}-${arch}.tar.gz`;
  const tar = ['-czf', join(prebuilds, name), '-C', dir, 'build/Release/better_sqlite3.node'];
  const result = spawnSync('tar', tar, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tar could not pack the binding: ${result.stderr}`);
  return { env: { npm_config_better_sqlite3_local_prebuilds: prebuilds }, version };
}

/** The environment of the commands a user types: nothing of this checkout, `registry` as theirs. */
export interface UserEnvironment {
  registry: string;
  /** npm's cache for the run; its content store is shared with the user's cache (by integrity). */
  cache: string;
  /** Further variables, e.g. those of `betterSqlitePrebuild`. */
  extra?: NodeJS.ProcessEnv;
}

/**
 * Sets up a per-run npm cache whose `_cacache` is the user's own: package tarballs are found by
 * their integrity whatever registry lists them, while npx's install folder (`_npx`) and the logs
 * stay in the run, so an earlier run's slicekit is never reused.
 */
export function runCache(folder: string): string {
  const cache = join(folder, 'npm-cache');
  mkdirSync(cache, { recursive: true });
  const shared = join(npmConfig('cache'), '_cacache');
  mkdirSync(shared, { recursive: true });
  symlinkSync(shared, join(cache, '_cacache'), 'junction');
  return cache;
}

/**
 * `process.env` without what ties it to this checkout: npm's variables of the `npm test` that
 * started mocha, mocha's loader options, and PATH entries inside the repository.
 */
export function userEnv(setup: UserEnvironment, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || ['INIT_CWD', 'NODE_OPTIONS', 'NODE_PATH'].includes(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && !entry.startsWith(repoRoot.replace(/[\\/]$/, '')))
    .join(delimiter);
  return {
    ...env,
    npm_config_registry: setup.registry,
    npm_config_cache: setup.cache,
    // npx installs slicekit without asking, as a user answering "y" would.
    npm_config_yes: 'true',
    // Package documents the run fetched once are not asked for again within it.
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    LOG_LEVEL: 'warn',
    ...setup.extra,
    ...extra,
  };
}

/** Publishes a tarball to the local registry, as `npm publish` would to the real one. */
export async function publish(registry: string, tarball: string, folder: string): Promise<void> {
  const userconfig = join(folder, 'publish.npmrc');
  const host = registry.replace(/^https?:/, '');
  // An anonymous registry: any token is accepted, npm only needs one to send.
  writeFileSync(userconfig, `registry=${registry}\n${host}:_authToken=local-test-token\n`);
  try {
    await run(npm, ['publish', tarball, '--access', 'public', '--userconfig', userconfig], {
      cwd: folder,
      env: userEnv({ registry, cache: join(folder, 'npm-cache') }),
    });
  } catch (error) {
    // On a loaded machine npm can give up waiting for the registry's answer to the upload and send
    // it again; the registry stored the first one and refuses the second as a conflict. The
    // publish happened when the registry holds this very tarball.
    if (!(await registryHolds(registry, tarball))) throw error;
  }
}

/** Whether the registry lists the tarball's name and version with the tarball's own integrity. */
async function registryHolds(registry: string, tarball: string): Promise<boolean> {
  const manifest = spawnSync('tar', ['-xOzf', tarball, 'package/package.json'], {
    encoding: 'utf8',
  });
  if (manifest.status !== 0) return false;
  const { name, version } = JSON.parse(manifest.stdout) as { name: string; version: string };
  const res = await fetch(new URL(name.replace('/', '%2f'), registry));
  if (!res.ok) return false;
  const document = (await res.json()) as {
    versions?: Record<string, { dist?: { integrity?: string } }>;
  };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  return document.versions?.[version]?.dist?.integrity === integrity;
}

/**
 * A fresh npm cache at `to` holding the tarballs of `lockfile` found in the cache `from` (by their
 * integrity, as npm looks them up), so a user who cannot read `from` installs them offline too.
 */
export function seedNpmCache(lockfile: string, from: string, to: string): void {
  const { packages = {} } = JSON.parse(readFileSync(lockfile, 'utf8')) as {
    packages?: Record<string, { integrity?: string }>;
  };
  for (const { integrity } of Object.values(packages)) {
    const [algorithm, digest] = integrity?.split(' ')[0]?.split('-') ?? [];
    if (!algorithm || !digest) continue;
    const hex = Buffer.from(digest, 'base64').toString('hex');
    const path = join(
      '_cacache',
      'content-v2',
      algorithm,
      hex.slice(0, 2),
      hex.slice(2, 4),
      hex.slice(4),
    );
    if (!existsSync(join(from, path))) continue;
    mkdirSync(dirname(join(to, path)), { recursive: true });
    copyFileSync(join(from, path), join(to, path));
  }
}
