// bench:admin: what the admin UI costs. Prints the admin's production bundle (dist/admin of a
// generated app's `npm run build`: raw and gzipped bytes), the time to the first table render of
// /admin on `npm run demo` in Debian's Chromium (headless, a fresh profile: the first visit, then
// a reload), and a generated app's `npm install` and `npm run build` times with and without the
// admin. Both apps are made as a user makes one from the packed tarballs (scripts/pack.ts): the
// Product app, outside the checkout, its slicekit and @slicekit/runtime taken through `file:`
// paths to the tarballs. "Without the admin" is the same app less admin/, its packages (react,
// react-dom, react-admin, their types; esbuild stays installed, tsx needs it) and `build:admin`.
// Each install starts with no node_modules and no lockfile, with an npm cache of its own, empty
// (BENCH_ADMIN_NPM_CACHE=user takes the user's cache instead); the two apps take turns,
// BENCH_ADMIN_ROUNDS pairs (default 2: without, with, with, without), and the means are compared.
// Target (issue 32): the admin adds at most 30 s to a fresh install.
// The last line is JSON with every figure (ms and bytes).
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from '../scripts/pack.js';
import { addEntity, generateApp, productSpec } from '../scripts/generate.js';
import { chromiumPath, openBrowser } from '../test/e2e/support/browser.js';
import { startDemo } from '../test/e2e/support/demo.js';
import { scratchFolder } from '../test/e2e/support/workspace.js';

const userCache = process.env.BENCH_ADMIN_NPM_CACHE === 'user';
const work = mkdtempSync(join(tmpdir(), 'slicekit-bench-admin-'));
const keep = process.env.KEEP_BENCH === '1';

/** What the admin alone brings: its packages, none of which the server imports. */
const ADMIN_PACKAGES = ['react', 'react-dom', 'react-admin', '@types/react', '@types/react-dom'];
/** esbuild bundles the admin and nothing else (admin/build.ts). */
const ADMIN_TOOLS = ['esbuild'];

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const kB = (bytes: number) => `${(bytes / 1024).toFixed(0)} kB`;

interface Timed {
  ms: number;
  /** CPU time of the command and its children (user + sys), ms. */
  cpuMs: number;
}

/** Runs a command to its end: wall and CPU time; a failure stops the bench with its output. */
function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Timed {
  const started = process.hrtime.bigint();
  // The command's CPU time (its children's included) is what the shell running it says (`times`).
  const result = spawnSync(
    'bash',
    [
      '-c',
      `"$@" >/dev/null 2>"$ERRFILE"; status=$?; times; exit $status`,
      'bench',
      command,
      ...args,
    ],
    { cwd, env: { ...env, ERRFILE: join(work, 'stderr.txt') }, encoding: 'utf8' },
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    const stderr = existsSync(join(work, 'stderr.txt'))
      ? readFileSync(join(work, 'stderr.txt'), 'utf8')
      : '';
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stderr.slice(-4000)}`);
  }
  // `times` prints the shell's own and then its children's user and sys times: "0m1.5s 0m0.2s".
  const children = result.stdout.trim().split('\n').at(-1) ?? '';
  const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, [, m, s]) => sum + (Number(m) * 60 + Number(s)) * 1000,
    0,
  );
  return { ms, cpuMs };
}

/** The Product app, its packages from the tarballs, in a folder of its own. */
async function productApp(
  name: string,
  tarballs: { slicekit: string; runtime: string },
): Promise<string> {
  const dir = join(work, name);
  await generateApp({ directory: dir, name });
  await addEntity(dir, productSpec, { now: '2024-05-01T09:30:00Z' });
  // Made in the checkout, the app links slicekit from it (node_modules/slicekit): a user's app
  // has no node_modules before its install, and takes both packages from the tarballs.
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  const file = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  manifest.dependencies['@slicekit/runtime'] = `file:${relative(dir, tarballs.runtime)}`;
  manifest.devDependencies.slicekit = `file:${relative(dir, tarballs.slicekit)}`;
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/** The same app without its admin: no admin/, none of its packages, no `build:admin`. */
function withoutAdmin(dir: string): void {
  rmSync(join(dir, 'admin'), { recursive: true, force: true });
  const file = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  for (const name of [...ADMIN_PACKAGES, ...ADMIN_TOOLS]) {
    delete manifest.dependencies[name];
    delete manifest.devDependencies[name];
  }
  delete manifest.scripts['build:admin'];
  manifest.scripts.build = manifest.scripts.build!.replace(' && npm run build:admin', '');
  manifest.scripts.typecheck = manifest.scripts.typecheck!.replace(' && tsc -p admin --noEmit', '');
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Installs and builds an app: each timed, from no node_modules and no lockfile. */
function installAndBuild(dir: string): { install: Timed; build: Timed; packages: number } {
  const cache = userCache ? undefined : mkdtempSync(join(work, 'npm-cache-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...(cache ? { npm_config_cache: cache } : {}),
  };
  // The checkout's loader and conditions are not a user's.
  delete env.NODE_OPTIONS;
  const install = timed('npm', ['install'], dir, env);
  const build = timed('npm', ['run', 'build'], dir, env);
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  if (cache) rmSync(cache, { recursive: true, force: true });
  return { install, build, packages: Object.keys(lock.packages).length - 1 };
}

/** The admin's production bundle: every file esbuild wrote but the source maps. */
function bundleSize(dir: string): { raw: number; gzip: number; files: string[] } {
  const out = join(dir, 'dist', 'admin');
  const files = readdirSync(out).filter((f) => !f.endsWith('.map') && f !== 'index.html');
  let raw = 0;
  let gzip = 0;
  for (const f of files) {
    const bytes = readFileSync(join(out, f));
    raw += statSync(join(out, f)).size;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip, files };
}

/**
 * The time from navigating to /admin to the first row of its table on screen, read in the page
 * (performance.now() counts from the navigation's start), checked on each animation frame.
 */
async function firstTableRender(url: string): Promise<{ firstVisit: number; reload: number }> {
  const browser = await openBrowser('bench-admin');
  try {
    const { page } = browser;
    const rendered = async () =>
      (await (
        await page.waitForFunction(
          "document.querySelector('table tbody tr td') !== null && performance.now()",
          undefined,
          { polling: 'raf', timeout: 60_000 },
        )
      ).jsonValue()) as number;
    await page.goto(`${url}/admin`, { waitUntil: 'commit' });
    const firstVisit = await rendered();
    await page.reload({ waitUntil: 'commit' });
    const reload = await rendered();
    return { firstVisit, reload };
  } finally {
    await browser.close();
  }
}

try {
  console.log(`bench:admin on ${cpus().length} cores, load ${load()} (1, 5, 15 min)`);
  // 1. Time to first table render on `npm run demo` (Product, SQLite, seeded).
  let render: { firstVisit: number; reload: number } | undefined;
  if (existsSync(chromiumPath)) {
    // Inside the checkout, as every demo: the app resolves tsx and slicekit through its node_modules.
    const demoDir = scratchFolder('bench-admin');
    const demo = await startDemo({ DEMO_DIR: demoDir.path, ADMIN_ENABLED: 'true' });
    try {
      render = await firstTableRender(demo.url);
    } finally {
      await demo.stop();
      demoDir.remove();
    }
    console.log(
      `first table render of /admin (demo) ${Math.round(render.firstVisit)} ms first visit, ` +
        `${Math.round(render.reload)} ms on reload   (load ${load()})`,
    );
  } else {
    console.log(`no Chromium at ${chromiumPath}: the first table render is not measured`);
  }

  // 2. The tarballs, and the two apps.
  const [runtime, slicekit] = pack(join(work, 'pack'));
  const tarballs = { slicekit: slicekit.tarball, runtime: runtime.tarball };
  const bare = await productApp('app-without-admin', tarballs);
  withoutAdmin(bare);
  const full = await productApp('app-with-admin', tarballs);

  // 3. Install and build each, in turn (without, with, with, without... BENCH_ADMIN_ROUNDS pairs,
  // default 2): one pair on a shared machine says little, the mean of pairs taken both ways more.
  const cacheNote = userCache ? "the user's npm cache" : 'an empty npm cache each';
  const rounds = Number(process.env.BENCH_ADMIN_ROUNDS ?? 2);
  const results: Record<'with' | 'without', ReturnType<typeof installAndBuild>[]> = {
    with: [],
    without: [],
  };
  let lastFull = full;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
    for (const variant of order) {
      const dir = join(work, `${variant}-${round}`);
      cpSync(variant === 'with' ? full : bare, dir, { recursive: true });
      const r = installAndBuild(dir);
      results[variant].push(r);
      if (variant === 'with') lastFull = dir;
      console.log(
        `${`${variant} admin`.padEnd(14)} npm install ${seconds(r.install.ms)} ` +
          `(CPU ${seconds(r.install.cpuMs)}, ${r.packages} packages), npm run build ` +
          `${seconds(r.build.ms)} (CPU ${seconds(r.build.cpuMs)})   (load ${load()}, ${cacheNote})`,
      );
    }
  }
  const bundle = bundleSize(lastFull);
  console.log(
    `admin bundle (dist/admin: ${bundle.files.join(', ')}) ${kB(bundle.raw)} raw, ` +
      `${kB(bundle.gzip)} gzipped`,
  );
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const of = (variant: 'with' | 'without') => ({
    install: mean(results[variant].map((r) => r.install.ms)),
    installCpu: mean(results[variant].map((r) => r.install.cpuMs)),
    build: mean(results[variant].map((r) => r.build.ms)),
    packages: results[variant][0]!.packages,
  });
  const withA = of('with');
  const withoutA = of('without');
  const addedInstall = withA.install - withoutA.install;
  const addedBuild = withA.build - withoutA.build;
  console.log(
    `the admin adds ${seconds(addedInstall)} to npm install (CPU ` +
      `${seconds(withA.installCpu - withoutA.installCpu)}, ${withA.packages - withoutA.packages} ` +
      `packages; target at most 30 s: ${addedInstall <= 30_000 ? 'met' : 'NOT met'}) and ` +
      `${seconds(addedBuild)} to npm run build (means of ${rounds} each)`,
  );
  console.log(
    JSON.stringify({
      bundle_bytes: bundle.raw,
      bundle_gzip_bytes: bundle.gzip,
      first_table_render_ms: render ? Math.round(render.firstVisit) : null,
      reload_table_render_ms: render ? Math.round(render.reload) : null,
      install_with_admin_ms: Math.round(withA.install),
      install_without_admin_ms: Math.round(withoutA.install),
      install_added_ms: Math.round(addedInstall),
      install_added_cpu_ms: Math.round(withA.installCpu - withoutA.installCpu),
      build_with_admin_ms: Math.round(withA.build),
      build_without_admin_ms: Math.round(withoutA.build),
      build_added_ms: Math.round(addedBuild),
      packages_with_admin: withA.packages,
      packages_without_admin: withoutA.packages,
      rounds,
      npm_cache: userCache ? 'user' : 'empty',
      load_1min: Number(loadavg()[0]!.toFixed(1)),
    }),
  );
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}
