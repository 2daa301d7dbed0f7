// bench:generate: how long `npx plop entity` takes, as whole processes, beside `nest g resource`
// (the NestJS CLI generating one resource) measured in the same run, turn about. The entity
// generator runs from the built package (dist/, as an installed slicekit does) on a fresh copy of
// a new app: the Product slice alone, and the shop example's four related entities in one run.
// The NestJS CLI is installed once into a folder under the system's temp folder, outside the
// repository. Prints medians and ranges, the time each further entity adds, the ratio to nest,
// and as its last line JSON with the medians (ms).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateApp, productSpec, shopSpecs } from '../scripts/generate.js';

const runs = Number(process.env.RUNS ?? 5);
const repo = fileURLToPath(new URL('..', import.meta.url));
const work = join(repo, '.bench-cache/generate');
const nestHome = join(tmpdir(), 'slicekit-bench-nest');
const nestBin = join(nestHome, 'node_modules/.bin/nest');
const plopBin = join(repo, 'node_modules/plop/bin/plop.js');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Runs a command to its end and answers its wall time in ms; a failure stops the bench. */
function timed(command: string, args: string[], cwd: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  }
  return ms;
}

/** The NestJS CLI and a new Nest project to copy; installed once, outside the repository. */
function prepareNest(): string {
  if (!existsSync(nestBin)) {
    console.log(`installing @nestjs/cli into ${nestHome} (once)`);
    mkdirSync(nestHome, { recursive: true });
    execFileSync('npm', ['i', '--prefix', nestHome, '@nestjs/cli', '--no-audit', '--no-fund'], {
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
// The generated app's plopfile, pointed at the built generators.
const plopfile = join(work, 'plopfile.js');
writeFileSync(
  plopfile,
  `import { entity } from ${JSON.stringify(join(repo, 'dist/plopfile.js'))};\n` +
    'export default function plopfile(plop) {\n  entity(plop);\n}\n',
);

const fresh = (from: string, name: string) => {
  const to = join(work, name);
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  return to;
};
const plop = (specs: string, run: number) => {
  const dest = fresh(app, `app-${run}`);
  const ms = timed(
    process.execPath,
    [plopBin, '--plopfile', plopfile, '--dest', dest, 'entity', '--', '--spec', specs],
    dest,
  );
  rmSync(dest, { recursive: true, force: true });
  return ms;
};

const one: number[] = [];
const shop: number[] = [];
const nest: number[] = [];
try {
  // Run 0 warms the disk cache; it is not counted. Each run takes the three in turn.
  for (let run = 0; run <= runs; run++) {
    const oneMs = plop(productSpec, run);
    const nestDir = fresh(nestProject, `nest-${run}`);
    const nestMs = timed(
      nestBin,
      ['g', 'resource', 'products', '--type', 'rest', '--crud', '--no-spec'],
      nestDir,
    );
    rmSync(nestDir, { recursive: true, force: true });
    const shopMs = plop(shopSpecs, run);
    if (run > 0) {
      one.push(oneMs);
      nest.push(nestMs);
      shop.push(shopMs);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const round = (ms: number) => Math.round(ms);
const further = (median(shop) - median(one)) / 3;
for (const [label, values] of [
  ['plop entity: Product', one],
  ['plop entity: shop (4 entities)', shop],
  ['nest g resource products', nest],
] as const) {
  console.log(
    `${label.padEnd(32)} median ${round(median(values))} ms ` +
      `(min ${round(Math.min(...values))}, max ${round(Math.max(...values))}, ${values.length} runs)`,
  );
}
console.log(`each further entity in one run    ${round(further)} ms`);
console.log(`Product / nest g resource         ${(median(one) / median(nest)).toFixed(2)}`);
console.log(
  JSON.stringify({
    entity_ms: round(median(one)),
    shop_ms: round(median(shop)),
    further_entity_ms: round(further),
    nest_resource_ms: round(median(nest)),
    ratio_to_nest: Math.round((median(one) / median(nest)) * 100) / 100,
  }),
);
