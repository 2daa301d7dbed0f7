// Starts a shared-app child process and waits until it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface AppProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Stops the process (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

const entry = join(import.meta.dirname, 'shared-app.ts');

export function startAppProcess(env: Record<string, string>): Promise<AppProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions', 'slicekit-source', entry],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{"port"'));
      if (!line) return;
      const { port } = JSON.parse(line) as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        child,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`app process exited early (${code ?? signal}): ${stderr}`)),
    );
  });
}
