// Starts the `/metrics` listener on its own port: loads prom-client (only here, only when a port
// is set), builds a registry of this process's metrics, and serves it as Prometheus text.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { channelMetrics } from './counters.js';
import { outboxGauges, poolGauges } from './database.js';
import { metricsDefaults, type Metrics, type MetricsOptions } from './options.js';

const off: Metrics = {
  port: undefined,
  text: () => Promise.resolve(''),
  close: () => Promise.resolve(),
};

/**
 * Serves this process's metrics at `GET /metrics` on `options.port`, a port of its own so the API
 * port never exposes them; with port 0 it does nothing and loads nothing. Each process of an app
 * serves its own (Prometheus sums them). Rejects when the port cannot be listened on.
 *
 * @example
 * const metrics = await startMetrics({ port: metricsPort, knex, logger });
 * // at shutdown
 * await metrics.close();
 */
export async function startMetrics(options: MetricsOptions): Promise<Metrics> {
  if (options.port === 0) return off;
  const client = await import('prom-client');
  const registry = new client.Registry();
  if (options.processMetrics ?? metricsDefaults.processMetrics) {
    client.collectDefaultMetrics({ register: registry });
  }
  const unsubscribe = channelMetrics(client, registry, metricsDefaults.maxLabelValues);
  if (options.knex) {
    poolGauges(client, registry, options.knex);
    outboxGauges(client, registry, options.knex, {
      table: options.outboxTable,
      timeoutMs: options.outboxTimeoutMs ?? metricsDefaults.outboxTimeoutMs,
      logger: options.logger,
    });
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        options.logger.warn({ err: error }, 'metrics: cannot collect');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('cannot collect\n');
      },
    );
  });
  try {
    await listen(server, options.port, options.host);
  } catch (error) {
    unsubscribe();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ metricsPort: port }, `metrics on http://localhost:${port}/metrics`);

  return {
    port,
    text: () => registry.metrics(),
    close() {
      unsubscribe();
      return new Promise<void>((done) => {
        server.close(() => done());
        // A scraper's keep-alive connection would hold the close open until it times out.
        server.closeAllConnections();
      });
    },
  };
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
