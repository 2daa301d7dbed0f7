// A TCP proxy the test controls, placed between a store and its server: `pause()` makes the
// server go silent (connections stay open, nothing is forwarded: the worst kind of outage),
// `resume()` heals it, `dropConnections()` resets every connection like a server restart.
// It also counts round trips on the wire: a client-to-server burst that follows a server reply
// (or opens the connection) is one round trip, however many packets it spans.
import net from 'node:net';

export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
}

export class TcpProxy {
  private paused = false;
  /** Round trips seen on the wire since the proxy started (or `resetRoundTrips()`). */
  roundTrips = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Starts a proxy on an ephemeral local port forwarding to `target`. */
  static async start(target: ProxyTarget): Promise<TcpProxy> {
    const holder: { proxy?: TcpProxy } = {};
    const server = net.createServer((client) => holder.proxy?.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    return holder.proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    if (this.paused) socket.pause();
  }

  private accept(client: net.Socket, target: ProxyTarget): void {
    const upstream = net.connect(target.port, target.host);
    this.track(client);
    this.track(upstream);
    const forward = (from: net.Socket, to: net.Socket) => {
      from.on('data', (chunk) => {
        if (!to.destroyed) to.write(chunk);
      });
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => to.destroy());
    };
    forward(client, upstream);
    forward(upstream, client);
    let lastUp = false;
    client.on('data', () => {
      if (!lastUp) this.roundTrips++;
      lastUp = true;
    });
    upstream.on('data', () => {
      lastUp = false;
    });
  }

  resetRoundTrips(): void {
    this.roundTrips = 0;
  }

  /** Stops forwarding in both directions; new connections are accepted and left silent. */
  pause(): void {
    this.paused = true;
    for (const socket of this.sockets) socket.pause();
  }

  /** Forwards again, including whatever was held while paused. */
  resume(): void {
    this.paused = false;
    for (const socket of this.sockets) socket.resume();
  }

  /** Resets every open connection, as a restarting server would. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
