// A baseline for the store benchmark: the pool-based PostgreSQL and MySQL stores of an earlier
// commit (each with a `pg` / `mysql2` pool of its own), loaded from that commit's runtime sources.
// `BENCH_BASELINE=<commit>` extracts the commit's runtime/src into a temporary folder outside the
// repository (its node_modules a link to the repository's), so the old stores run unchanged beside
// the current ones, behind the current guard.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { IdempotencyKeyStore, StoreTimings } from '../runtime/src/idempotency/store.js';

/** A store constructor of the old commit: a connection URL, settings and the timings. */
type OldStoreClass = new (
  url: string,
  settings: object,
  timings: StoreTimings,
) => IdempotencyKeyStore;

export interface BaselineStores {
  readonly commit: string;
  make(kind: 'postgres' | 'mysql', url: string, timings: StoreTimings): IdempotencyKeyStore;
  /** Removes the temporary folder. */
  remove(): void;
}

const repository = fileURLToPath(new URL('..', import.meta.url));

/** The commit `BENCH_BASELINE` names, or undefined when the benchmark runs without a baseline. */
export const baselineCommit = (): string | undefined => process.env.BENCH_BASELINE || undefined;

/** Extracts `commit`'s runtime sources and loads its PostgreSQL and MySQL stores. */
export async function loadBaseline(commit: string): Promise<BaselineStores> {
  const folder = mkdtempSync(join(tmpdir(), 'slicekit-baseline-'));
  const archive = execFileSync('git', ['archive', commit, 'runtime/src'], {
    cwd: repository,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', folder], { input: archive });
  symlinkSync(join(repository, 'node_modules'), join(folder, 'node_modules'), 'dir');
  const stores = join(folder, 'runtime/src/idempotency/stores');
  const load = async (file: string, name: string) =>
    ((await import(pathToFileURL(join(stores, file)).href)) as Record<string, OldStoreClass>)[
      name
    ]!;
  const classes = {
    postgres: await load('postgres-store.ts', 'PostgresIdempotencyStore'),
    mysql: await load('mysql-store.ts', 'MySqlIdempotencyStore'),
  };
  return {
    commit,
    // Settings as the old registration from a URL: its own pool of 10 connections.
    make: (kind, url, timings) => new classes[kind](url, { poolSize: 10 }, timings),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
