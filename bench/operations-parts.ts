// Pieces of bench/operations.ts: free ports, the OTLP sink, a server's CPU time, and the
// metrics' own work per request measured in process.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A TCP port free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  return port;
}

/** An OTLP/HTTP receiver that accepts every export and counts them. */
export async function otlpSink(): Promise<{ server: Server; url: string; exports: () => number }> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, exports: () => exports };
}

// CPU time a server process has used, in µs, from /proc (Linux): on a machine shared with other
// work, CPU per request is steadier than requests/s. Undefined elsewhere.
const ticksPerSecond =
  Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
export function cpuMicros(child: ChildProcess): number | undefined {
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of the whole line (11 and 12 after the name).
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
  } catch {
    return undefined;
  }
}

/**
 * The metrics' own work per request, in process: `httpMetrics()` on a request whose response
 * finishes, with `startMetrics` listening (timing, route template, histogram) against without
 * (one check). Fake request and response objects carry what the middleware reads; the loop runs
 * the compiled runtime, as the app does.
 */
export async function perRequestWork(): Promise<{ onNs: number; offNs: number }> {
  const { httpMetrics, startMetrics } = await import('@slicekit/runtime/metrics');
  const middleware = httpMetrics();
  const run = (count: number) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < count; i++) {
      const req = {
        method: 'GET',
        baseUrl: '/v1',
        route: { path: '/products/:id' },
        originalUrl: `/v1/products/${i}`,
        url: `/products/${i}`,
      };
      const res = Object.assign(new EventEmitter(), { statusCode: 200 });
      (middleware as (...args: unknown[]) => void)(req, res, () => undefined);
      res.emit('finish');
    }
    return Number(process.hrtime.bigint() - started) / count;
  };
  const count = 200_000;
  run(count); // warm-up
  const offNs = Math.min(run(count), run(count), run(count));
  const metrics = await startMetrics({
    port: await freePort(),
    logger: { info() {}, warn() {} },
    processMetrics: false,
  });
  run(count);
  const onNs = Math.min(run(count), run(count), run(count));
  await metrics.close();
  return { onNs, offNs };
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
