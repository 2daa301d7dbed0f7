// Several processes of one generated app folder, as a team runs them: the app built once with
// `npm run build`, migrated once with the compiled `node dist/src/migrate.js`, then each process
// started with `npm start` on its own PORT and METRICS_PORT with MIGRATE_ON_START=false.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { productSpec } from '../../../scripts/generate.js';
import type { Dialect } from '../../support/services.js';
import { freePort, run } from './processes.js';
import { sendTo } from './round-robin.js';
import { ensureRuntimeBuilt, plainEnv, repoRoot } from './workspace.js';

const node = process.execPath;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Generates an app in `folder` with the sample Product, its creates requiring an idempotency key,
 * builds it and migrates `databaseUrl`; resolves to the app's folder.
 */
export async function buildProductApp(
  folder: string,
  dialect: Exclude<Dialect, 'sqlite'>,
  databaseUrl: string,
): Promise<string> {
  // The built app imports the runtime's compiled build, as an installed one does.
  ensureRuntimeBuilt();
  const app = join(folder, 'shop');
  const spec = join(folder, 'product.yaml');
  writeFileSync(spec, `${readFileSync(productSpec, 'utf8')}\nidempotent: [Create]\n`);
  const env = plainEnv();
  await run(node, [join(repoRoot, 'bin/slicekit.js'), 'new', app, '--database', dialect, '-y'], {
    cwd: folder,
    env,
  });
  await run(
    node,
    [join(repoRoot, 'node_modules/plop/bin/plop.js'), 'entity', '--', '--spec', spec],
    {
      cwd: app,
      env,
    },
  );
  await run('npm', ['run', 'build'], { cwd: app, env });
  await run(node, ['dist/src/migrate.js'], {
    cwd: app,
    env: plainEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }),
  });
  return app;
}

export interface Replica {
  /** PORT and METRICS_PORT, free ones chosen at the first start and kept across restarts. */
  readonly port: number;
  readonly metricsPort: number;
  /** What the current process printed so far. */
  output(): string;
  /** Starts the process (again, on the same ports) and resolves once it is ready. */
  start(): Promise<void>;
  /** Sends SIGTERM to the app's node process; resolves with `npm start`'s exit code. */
  terminate(): Promise<number | null>;
  /** Stops whatever runs, by SIGTERM then SIGKILL; for `after` hooks. */
  stop(): Promise<void>;
}

/** The pid of the `node ... dist/src/server.js` process under `pid` (npm, then its shell). */
function serverPid(pid: number): number | undefined {
  const children = (parent: number): { pid: number; args: string }[] => {
    try {
      return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent)], {
        encoding: 'utf8',
      })
        .split('\n')
        .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
        .filter((match): match is RegExpExecArray => match !== null)
        .map((match) => ({ pid: Number(match[1]), args: match[2]! }));
    } catch {
      return []; // ps exits 1 when there is no child
    }
  };
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children(queue.shift()!)) {
      if (child.args.includes('dist/src/server.js') && /^\S*node\s/.test(child.args))
        return child.pid;
      queue.push(child.pid);
    }
  }
  return undefined;
}

/** Waits until `/health/ready` on `port` answers 200, for at most `timeoutMs`. */
export async function untilReady(
  port: number,
  timeoutMs: number,
  alive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline && alive()) {
    try {
      const answer = await sendTo(port, { method: 'GET', path: '/health/ready' }, 2000);
      if (answer.status === 200) return;
      last = `${answer.status} ${answer.text.slice(0, 300)}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(100);
  }
  throw new Error(`:${port}/health/ready did not answer 200: ${last}`);
}

/** Ports handed to the processes of this run, so two of them never get the same one. */
const handedOut = new Set<number>();

/** A free port no process of this run was given yet. */
async function ownPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** One process of the app in `app`, with `env` (DATABASE_URL, EVENTS_*...) on free ports. */
export function replica(app: string, env: NodeJS.ProcessEnv): Replica {
  let port = 0;
  let metricsPort = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let running = false;
  let output = '';
  const launch = async () => {
    output = '';
    child = spawn('npm', ['start'], {
      cwd: app,
      env: plainEnv({
        LOG_LEVEL: 'warn',
        ...env,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        MIGRATE_ON_START: 'false',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running = true;
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = once(child, 'exit').then(([code]) => {
      running = false;
      return code as number | null;
    });
    try {
      await untilReady(port, 30_000, () => running);
    } catch (error) {
      throw new Error(`${String(error)}\nthe process printed:\n${output}`);
    }
  };
  const self: Replica = {
    get port() {
      return port;
    },
    get metricsPort() {
      return metricsPort;
    },
    output: () => output,
    async start() {
      if (port !== 0) return launch(); // a restart keeps its ports: the balancer knows them
      // A port free a moment ago can be taken by another program before the app binds it.
      for (let attempt = 1; ; attempt++) {
        [port, metricsPort] = [await ownPort(), await ownPort()];
        try {
          return await launch();
        } catch (error) {
          if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
        }
      }
    },
    async terminate() {
      const pid = child?.pid === undefined ? undefined : serverPid(child.pid);
      if (!running || pid === undefined) throw new Error(`no app process on :${port}\n${output}`);
      process.kill(pid, 'SIGTERM');
      const code = await Promise.race([exited, sleep(30_000).then(() => 'hung' as const)]);
      if (code === 'hung') {
        await self.stop();
        throw new Error(`the process on :${port} did not exit within 30 s of SIGTERM\n${output}`);
      }
      return code;
    },
    async stop() {
      if (!running || child?.pid === undefined) return;
      // The app's process alone when it runs (npm does not pass the signal on), else all of them.
      process.kill(serverPid(child.pid) ?? -child.pid, 'SIGTERM');
      const code = await Promise.race([exited, sleep(15_000).then(() => 'hung' as const)]);
      if (code === 'hung' && running) {
        process.kill(-child.pid, 'SIGKILL');
        await exited;
      }
    },
  };
  return self;
}
