// bench:generate: how long the generators take. A new app (without npm install) and the sample
// Product slice, each generated several times into fresh folders after one warm-up run; prints
// the median and the range, and as its last line JSON with `entity_ms` and `app_ms` (medians).
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addEntity, generateApp, productSpec } from '../scripts/generate.js';

const runs = Number(process.env.RUNS ?? 7);
const root = fileURLToPath(new URL('../.bench-cache/generate/', import.meta.url));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const app: number[] = [];
const entity: number[] = [];
mkdirSync(root, { recursive: true });
try {
  // Run 0 warms up module loading and template compilation; it is not counted.
  for (let run = 0; run <= runs; run++) {
    const directory = join(root, `app-${randomBytes(3).toString('hex')}`);
    const appMs = await timed(() => generateApp({ directory, name: 'bench-app' }));
    const entityMs = await timed(() => addEntity(directory, productSpec));
    if (run > 0) {
      app.push(appMs);
      entity.push(entityMs);
    }
    rmSync(directory, { recursive: true, force: true });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const round = (ms: number) => Math.round(ms * 10) / 10;
for (const [label, values] of [
  ['new app (no npm install)', app],
  ['Product slice', entity],
] as const) {
  console.log(
    `${label.padEnd(26)} median ${round(median(values))} ms ` +
      `(min ${round(Math.min(...values))}, max ${round(Math.max(...values))}, ${values.length} runs)`,
  );
}
console.log(JSON.stringify({ entity_ms: round(median(entity)), app_ms: round(median(app)) }));
