// bench:generate: how long `npx plop entity` takes, as whole processes, beside `nest g resource`
// (the NestJS CLI generating one resource) measured in the same run, turn about. The entity
// generator runs from the built package (dist/, as an installed slicekit does) on a fresh copy of
// a new app: the Product slice alone, and the shop example's four related entities in one run.
// The NestJS CLI is installed once into a folder under the system's temp folder, outside the
// repository. Prints medians and ranges of wall and CPU time (user + sys of the process and its
// children), the time each further entity adds, the ratio to nest, the machine's load, and as its
// last line JSON with the medians (ms).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateApp, productSpec, shopSpecs } from '../scripts/generate.js';

const runs = Number(process.env.RUNS ?? 5);
const repo = fileURLToPath(new URL('..', import.meta.url));
const work = join(repo, '.bench-cache/generate');
// NestJS CLI 11, the last release for Node 20 (slicekit's floor; 12 asks for Node 22).
const NEST_CLI = '@nestjs/cli@11';
const nestHome = join(tmpdir(), 'slicekit-bench-nest-11');
const nestBin = join(nestHome, 'node_modules/.bin/nest');
const plopBin = join(repo, 'node_modules/plop/bin/plop.js');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface Timed {
  /** Wall time, ms. */
  ms: number;
  /** CPU time (user + sys) of the command and its children, ms. */
  cpuMs: number;
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

/**
 * Runs a command to its end and answers its wall and CPU time; a failure stops the bench. The CPU
 * time is what the shell running it says of its children (`times`), the shell's start-up aside.
 */
function timed(command: string, args: string[], cwd: string): Timed {
  const started = process.hrtime.bigint();
  const result = spawnSync(
    'bash',
    ['-c', '"$@" >/dev/null 2>&1; status=$?; times; exit $status', 'bench', command, ...args],
    { cwd, encoding: 'utf8', stdio: 'pipe' },
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    const again = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
    throw new Error(`${command} ${args.join(' ')} failed:\n${again.stdout}\n${again.stderr}`);
  }
  // `times` prints the shell's user and sys time, then its children's: "0m1.021s 0m0.150s".
  const children = result.stdout.trim().split('\n').at(-1) ?? '';
  const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, [, m, sec]) => sum + (Number(m) * 60 + Number(sec)) * 1000,
    0,
  );
  return { ms, cpuMs };
}

/** The NestJS CLI and a new Nest project to copy; installed once, outside the repository. */
function prepareNest(): string {
  if (!existsSync(nestBin)) {
    console.log(`installing ${NEST_CLI} into ${nestHome} (once)`);
    mkdirSync(nestHome, { recursive: true });
    execFileSync('npm', ['i', '--prefix', nestHome, NEST_CLI, '--no-audit', '--no-fund'], {
      stdio: 'inherit',
    });
  }
  const project = join(nestHome, 'project');
  if (!existsSync(join(project, 'nest-cli.json'))) {
    execFileSync(nestBin, ['new', 'project', '--skip-install', '--skip-git', '-p', 'npm'], {
      cwd: nestHome,
      stdio: 'ignore',
    });
    // `g resource` adds @nestjs/mapped-types and installs it when package.json lacks it: given
    // beforehand, the resource is generated without an npm install in the timing.
    const file = join(project, 'package.json');
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { dependencies: Record<string, string> };
    pkg.dependencies['@nestjs/mapped-types'] = '*';
    writeFileSync(file, JSON.stringify(pkg, null, 2));
  }
  return project;
}

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const nestProject = prepareNest();
const app = join(work, 'app');
await generateApp({ directory: app, name: 'bench-app' });
// The generated app's plopfile, pointed at the built generators, which it loads as an installed
// slicekit/plop does (bin/generators.js): with Node's compile cache on where Node has it (22.1+).
const plopfile = join(work, 'plopfile.js');
writeFileSync(
  plopfile,
  "import module from 'node:module';\n" +
    'module.enableCompileCache?.();\n' +
    `const { entity } = await import(${JSON.stringify(join(repo, 'dist/plopfile.js'))});\n` +
    'export default function plopfile(plop) {\n  entity(plop);\n}\n',
);

const fresh = (from: string, name: string) => {
  const to = join(work, name);
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  return to;
};
const plop = (specs: string, run: number): Timed => {
  const dest = fresh(app, `app-${run}`);
  const time = timed(
    process.execPath,
    [plopBin, '--plopfile', plopfile, '--dest', dest, 'entity', '--', '--spec', specs],
    dest,
  );
  rmSync(dest, { recursive: true, force: true });
  return time;
};

const one: Timed[] = [];
const shop: Timed[] = [];
const nest: Timed[] = [];
const loadBefore = load();
try {
  // Run 0 warms the disk cache; it is not counted. Each run takes the three in turn.
  for (let run = 0; run <= runs; run++) {
    const oneTime = plop(productSpec, run);
    const nestDir = fresh(nestProject, `nest-${run}`);
    const nestTime = timed(
      nestBin,
      ['g', 'resource', 'products', '--type', 'rest', '--crud', '--no-spec'],
      nestDir,
    );
    rmSync(nestDir, { recursive: true, force: true });
    const shopTime = plop(shopSpecs, run);
    if (run > 0) {
      one.push(oneTime);
      nest.push(nestTime);
      shop.push(shopTime);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const round = (ms: number) => Math.round(ms);
const wall = (values: Timed[]) => median(values.map((t) => t.ms));
const cpu = (values: Timed[]) => median(values.map((t) => t.cpuMs));
const further = (wall(shop) - wall(one)) / 3;
const furtherCpu = (cpu(shop) - cpu(one)) / 3;
console.log(`load ${loadBefore} before, ${load()} after (1, 5, 15 min; 2 cores)`);
for (const [label, values] of [
  ['plop entity: Product', one],
  ['plop entity: shop (4 entities)', shop],
  ['nest g resource products', nest],
] as const) {
  const ms = values.map((t) => t.ms);
  console.log(
    `${label.padEnd(32)} median ${round(wall(values))} ms ` +
      `(min ${round(Math.min(...ms))}, max ${round(Math.max(...ms))}, ${values.length} runs), ` +
      `CPU ${round(cpu(values))} ms`,
  );
}
console.log(`each further entity in one run    ${round(further)} ms (CPU ${round(furtherCpu)} ms)`);
console.log(
  `Product / nest g resource         ${(wall(one) / wall(nest)).toFixed(2)} ` +
    `(CPU ${(cpu(one) / cpu(nest)).toFixed(2)})`,
);
console.log(
  JSON.stringify({
    entity_ms: round(wall(one)),
    entity_cpu_ms: round(cpu(one)),
    shop_ms: round(wall(shop)),
    shop_cpu_ms: round(cpu(shop)),
    further_entity_ms: round(further),
    further_entity_cpu_ms: round(furtherCpu),
    nest_resource_ms: round(wall(nest)),
    nest_resource_cpu_ms: round(cpu(nest)),
    ratio_to_nest: Math.round((wall(one) / wall(nest)) * 100) / 100,
    cpu_ratio_to_nest: Math.round((cpu(one) / cpu(nest)) * 100) / 100,
    load_1min: Number(loadavg()[0]!.toFixed(1)),
  }),
);
