// A TCP proxy between the apps and a shared broker (NATS, RabbitMQ) that the test can shut: an
// outage of "the broker" as the apps see it, without ever stopping the real server others use.
// Shut, it drops every open connection and resets each new one at once; opened, it forwards again.
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface BrokerGate {
  readonly port: number;
  /** `url` (nats://, amqp://) with its host and port replaced by the gate's. */
  proxied(url: string): string;
  shut(): void;
  open(): void;
  close(): Promise<void>;
}

/** Starts a gate forwarding to the host and port of `target`. */
export async function startBrokerGate(target: string): Promise<BrokerGate> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let shut = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (shut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: hostname, port: Number(port) });
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const gatePort = (server.address() as AddressInfo).port;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    port: gatePort,
    proxied(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(gatePort);
      return parsed.toString();
    },
    shut() {
      shut = true;
      dropAll();
    },
    open() {
      shut = false;
    },
    async close() {
      dropAll();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
