// The shared NATS JetStream and RabbitMQ servers of the test run: their URLs, and a probe that
// skips a suite loudly (or fails it under REQUIRE_SERVICES=1) when one does not answer.
import { connect as tcpConnect } from 'node:net';

export const brokerUrls = {
  nats: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  amqp: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
} as const;

export type BrokerName = keyof typeof brokerUrls;

const probes = new Map<BrokerName, Promise<Error | undefined>>();

function reachable(url: string): Promise<Error | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port) });
    socket.setTimeout(3000, () => socket.destroy(new Error('timed out')));
    socket.on('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.on('error', (error) => resolve(error));
  });
}

/** Skips the suite (from a `before` hook) when the broker does not accept connections. */
export async function requireBroker(context: Mocha.Context, broker: BrokerName): Promise<void> {
  let probe = probes.get(broker);
  if (!probe) {
    probe = reachable(brokerUrls[broker]);
    probes.set(broker, probe);
  }
  const error = await probe;
  if (!error) return;
  const line = `${broker} at ${brokerUrls[broker].replace(/\/\/[^@]*@/, '//')} did not answer (${error.message})`;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${line}; REQUIRE_SERVICES=1`);
  console.error(`\n  !!! SKIPPING ${broker} SUITES: ${line}\n`);
  context.skip();
}
