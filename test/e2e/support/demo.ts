// `npm run demo` started as a user starts it, on a free port, for the end-to-end tests.
import { freePort, serve, type Served } from './processes.js';
import { plainEnv, repoRoot } from './workspace.js';

/**
 * Runs `npm run demo` with `env` (DEMO, DEMO_DIR, DATABASE_URL, SEED...) and resolves once the
 * server answers and the demo has printed its banner.
 */
export async function startDemo(env: NodeJS.ProcessEnv): Promise<Served> {
  const port = await freePort();
  const demo = await serve('npm', ['run', 'demo'], {
    cwd: repoRoot,
    // Demos run side by side in the suite: no metrics listener unless a test asks for one.
    // Nor an admin (built at each start) unless the test asks for it.
    env: plainEnv({ METRICS_PORT: '0', ADMIN_ENABLED: 'false', ...env, PORT: String(port) }),
    port,
    probePath: env.DEMO?.startsWith('shop') ? '/v1/customers' : '/v1/products',
  });
  // The demo prints its banner once it has seen the server answer, a moment after we did.
  for (let i = 0; i < 100 && !demo.output().includes('Stop with Ctrl+C'); i++) {
    await new Promise((done) => setTimeout(done, 100));
  }
  return demo;
}

/**
 * The request lines of the demo's banner (those between `Try:` and `Stop with Ctrl+C.`), with its
 * port written as the documented 3000 and runs of spaces as one.
 */
export function bannerLines(output: string, port: string): string[] {
  const banner = /\nTry:\n([\s\S]*?)\nStop with Ctrl\+C\./.exec(output)?.[1] ?? '';
  return banner
    .split('\n')
    .map((line) =>
      line.trim().replace(/\s+/g, ' ').replaceAll(`localhost:${port}`, 'localhost:3000'),
    )
    .filter((line) => line !== '');
}
