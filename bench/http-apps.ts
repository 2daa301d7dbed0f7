// Pieces of bench/http.ts: the databases (one per app, seeded with one bulk insert), the generated
// Product app built as in production, the servers started as child processes, and the CPU time
// of a process and of the database server read from /proc.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { ensureRuntimeBuild } from '../scripts/pack.js';
import { addEntity, generateApp, productSpec } from '../scripts/generate.js';
import { freePort } from './operations-parts.js';

export type Db = 'pg' | 'mysql';
export const serverUrls: Record<Db, string> = {
  pg: process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  mysql: process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql',
};
export const protocolOf = { pg: 'postgres', mysql: 'mysql' } as const;

export const root = fileURLToPath(new URL('..', import.meta.url));

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function knexOf(db: Db, url: string): Knex {
  return knexFactory({
    client: db === 'pg' ? 'pg' : 'mysql2',
    connection: db === 'pg' ? { connectionString: url } : { uri: url },
    pool: { min: 0, max: 2 },
  });
}

const dropStatement = (db: Db, name: string) =>
  `DROP DATABASE IF EXISTS ${name}${db === 'pg' ? ' WITH (FORCE)' : ''}`;

/** Drops database `name` on the `db` server, if it is there. */
export async function dropDatabase(db: Db, name: string): Promise<void> {
  await withKnex(db, serverUrls[db], (admin) => admin.raw(dropStatement(db, name)));
}

/** Drops and creates database `name` on the `db` server; returns its URL. */
export async function freshDatabase(db: Db, name: string): Promise<string> {
  await withKnex(db, serverUrls[db], async (admin) => {
    await admin.raw(dropStatement(db, name));
    await admin.raw(
      db === 'pg' ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} CHARACTER SET utf8mb4`,
    );
  });
  return withDatabase(serverUrls[db], name);
}

/**
 * Runs `work` on a connection of its own to `url` (seeding, reading ids), then closes it.
 */
export async function withKnex<T>(db: Db, url: string, work: (knex: Knex) => Promise<T>) {
  const knex = knexOf(db, url);
  try {
    return await work(knex);
  } finally {
    await knex.destroy();
  }
}

/** Fills an empty products table with `count` rows owned by the anonymous caller, in one statement. */
export async function seedProducts(db: Db, url: string, count: number): Promise<void> {
  await withKnex(db, url, async (knex) => {
    // Five digit tables crossed: 0..99999, on both servers, without generate_series.
    const digits =
      '(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
    const n = 'a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d';
    // MySQL's UUID() is version 1, which the generated app refuses as an id: a version 4 layout
    // made of the row number's MD5 instead.
    const h = (from: number, length: number) =>
      `SUBSTR(MD5(CONCAT('p', ${n})), ${from}, ${length})`;
    const uuid =
      db === 'pg'
        ? 'gen_random_uuid()'
        : `CONCAT(${h(1, 8)}, '-', ${h(9, 4)}, '-4', ${h(14, 3)}, '-8', ${h(18, 3)}, '-', ${h(21, 12)})`;
    const name = db === 'pg' ? `'Product ' || (${n})` : `CONCAT('Product ', ${n})`;
    const stamp =
      db === 'pg' ? `now() - (${n}) * interval '1 second'` : `NOW(3) - INTERVAL (${n}) SECOND`;
    await knex.raw(
      `INSERT INTO products (id, name, price, is_discontinued, owned_by, created_by, created_on, updated_by, updated_on)
       SELECT ${uuid}, ${name}, 1 + MOD(${n}, 500), false, '', '', ${stamp}, '', ${stamp}
       FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e, ${digits} f
       WHERE ${n} < ${count}`,
    );
    if (db === 'pg') await knex.raw('ANALYZE products');
    else await knex.raw('ANALYZE TABLE products');
  });
}

/** The ids of the products, oldest first, for the loads to pick from. */
export async function productIds(db: Db, url: string): Promise<string[]> {
  return withKnex(db, url, async (knex) =>
    (await knex('products').select('id').orderBy('created_on')).map(
      (row: { id: string }) => row.id,
    ),
  );
}

/**
 * The generated Product app in `directory`, compiled, with the compiled runtime it resolves to:
 * the sample spec, or with `idempotent: [Create]` added (its create then requires a key).
 */
export async function buildSlicekit(directory: string, idempotentCreate = false): Promise<void> {
  rmSync(directory, { recursive: true, force: true });
  await generateApp({ directory, name: 'http-bench', database: 'postgres' });
  let spec = productSpec;
  if (idempotentCreate) {
    spec = join(root, '.bench-cache', 'product-idempotent.yaml');
    writeFileSync(spec, `${readFileSync(productSpec, 'utf8')}\nidempotent: [Create]\n`);
  }
  await addEntity(directory, spec, { now: '2024-05-01T09:30:00Z' });
  buildApp(directory);
}

/** Compiles the generated app in `directory` (`npm run build`) and the runtime it resolves to. */
export function buildApp(directory: string): void {
  ensureRuntimeBuild();
  const plain = { ...process.env };
  delete plain.NODE_OPTIONS;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const built = spawnSync(npm, ['run', 'build'], { cwd: directory, env: plain, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build failed:\n${built.stdout}${built.stderr}`);
}

export interface Server {
  readonly url: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `node args...` in `cwd` with `env` and waits until `probe` answers 200. */
export async function startServer(
  label: string,
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  probe: string,
): Promise<Server> {
  const port = await freePort();
  const plain = { ...process.env };
  delete plain.NODE_OPTIONS;
  for (const key of Object.keys(plain)) if (key.startsWith('OTEL_')) delete plain[key];
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...plain, PORT: String(port), METRICS_PORT: '0', ...env },
    // The request log (on by default) goes nowhere: it is work the app does, not output to keep.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A bench that fails or is interrupted leaves no server behind.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', orphan);
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${label} exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}${probe}`)).ok) return { url, process: child, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`${label} did not answer within 60 s`);
}

const ticksPerSecond =
  Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU µs (user + system) process `pid` has used, from /proc; NaN where it cannot be read. */
export function cpuOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
  } catch {
    return NaN;
  }
}

/**
 * CPU µs used by the database server for `database`: on PostgreSQL the sum over the backends
 * serving that database (their command line names it), so other work on the server is left out;
 * on MySQL/MariaDB the whole server process, which serves every database from one process.
 * A backend that ends between two readings takes its time with it; the apps' pools keep theirs
 * open during a load.
 */
export function databaseCpu(db: Db, database: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (db === 'mysql' ? /^(mariadbd|mysqld)$/.test(name) : name === 'postgres') {
        const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (db === 'mysql' || command.includes(` ${database} `)) total += cpuOf(Number(entry));
      }
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}
