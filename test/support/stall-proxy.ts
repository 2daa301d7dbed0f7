// A TCP proxy in front of a database server that can go silent: while stalled it keeps every
// connection open but forwards nothing either way (as a network that drops packets), and new
// connections are accepted but not answered. Resumed, the held bytes flow again.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface StallProxy {
  /** The port on 127.0.0.1 the proxy listens on. */
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string;
  /** Stops forwarding, in both directions, without closing anything. */
  stall(): void;
  /** Forwards again, the held bytes first. */
  resume(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket | undefined;
}

/** Starts a proxy forwarding to `target` (a `postgres://` or `mysql://` URL's host and port). */
export async function startStallProxy(target: string): Promise<StallProxy> {
  const { hostname, port } = new URL(target);
  const pairs = new Set<Pair>();
  let stalled = false;

  const link = (pair: Pair) => {
    const server = connect({ host: hostname, port: Number(port) });
    pair.server = server;
    pair.client.pipe(server);
    server.pipe(pair.client);
    const end = () => {
      pair.client.destroy();
      server.destroy();
      pairs.delete(pair);
    };
    pair.client.on('close', end);
    server.on('close', end);
    pair.client.on('error', end);
    server.on('error', end);
  };

  const listener: Server = createServer((client) => {
    const pair: Pair = { client, server: undefined };
    pairs.add(pair);
    client.on('error', () => client.destroy());
    if (stalled) client.pause();
    else link(pair);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  const proxyPort = typeof address === 'object' && address ? address.port : 0;

  return {
    port: proxyPort,
    proxied(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(proxyPort);
      return parsed.toString();
    },
    stall() {
      stalled = true;
      for (const { client, server } of pairs) {
        // Unpiped and paused: nothing is read, so nothing is forwarded and nothing is refused.
        if (server) {
          client.unpipe(server);
          server.unpipe(client);
          server.pause();
        }
        client.pause();
      }
    },
    resume() {
      stalled = false;
      for (const pair of pairs) {
        if (!pair.server) {
          link(pair);
        } else {
          pair.client.pipe(pair.server);
          pair.server.pipe(pair.client);
        }
        pair.client.resume();
        pair.server?.resume();
      }
    },
    async close() {
      for (const { client, server } of pairs) {
        client.destroy();
        server?.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
