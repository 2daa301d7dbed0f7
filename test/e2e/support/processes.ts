// Child processes for the end-to-end tests: commands that must succeed (their output is shown when
// they do not) and an app server started on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** Runs a command to completion; rejects with the command and the tail of its output on failure. */
export function run(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} (in ${options.cwd}) exited with ${code ?? signal}:\n` +
              output.slice(-6000),
          ),
        );
    });
  });
}

/** A TCP port nobody listens on right now, on any interface (as the app servers listen). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || address === null) throw new Error('no port was assigned');
  return address.port;
}

export interface Served {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Everything the process printed so far. */
  output(): string;
  stop(): Promise<void>;
  /**
   * Sends `signal` to the started process alone (not its group, as a supervisor without a
   * terminal does) and resolves once it exited; rejects after `ms`.
   */
  signal(signal: NodeJS.Signals, ms?: number): Promise<void>;
}

/**
 * Starts a long-running process that serves HTTP on `port` and resolves once `probePath` answers
 * (any status). Rejects with the process output when it exits first, stays silent for 60 s or
 * has not served after 3 minutes.
 */
export async function serve(
  command: string,
  args: readonly string[],
  options: RunOptions & { port: number; probePath?: string },
): Promise<Served> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  const url = `http://127.0.0.1:${options.port}`;
  const served: Served = {
    url,
    output: () => output,
    async stop() {
      if (exited || child.pid === undefined) return;
      const gone = once(child, 'exit');
      // The whole process group: npm and tsx start children of their own.
      process.kill(-child.pid, 'SIGTERM');
      await gone;
    },
    async signal(signal, ms = 20_000) {
      if (exited || child.pid === undefined) return;
      const gone = once(child, 'exit');
      process.kill(child.pid, signal);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${signal} did not stop it in ${ms} ms`)), ms);
      });
      try {
        await Promise.race([gone, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  // Silent for 60 s, or 3 minutes in all: a loaded machine may take long to build, as long as the
  // process keeps saying what it does.
  const start = Date.now();
  let heard = { at: start, length: 0 };
  while (Date.now() - heard.at < 60_000 && Date.now() - start < 180_000) {
    if (output.length !== heard.length) heard = { at: Date.now(), length: output.length };
    if (exited) throw new Error(`${command} ${args.join(' ')} exited before serving:\n${output}`);
    try {
      await fetch(url + (options.probePath ?? '/'));
      return served;
    } catch {
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  await served.stop();
  throw new Error(
    `${command} ${args.join(' ')} did not serve ${url} (silent for 60 s or 3 minutes in all):\n${output}`,
  );
}
