// The broker settings of an app (EVENTS_BROKER_URL and the names around it), read strictly, and
// the relay they describe, whose client library is loaded only when a broker is configured.
import { ConfigError, type Env } from '../../config/index.js';
import type { EventRelay, RelayMessage } from '../relay.js';
import {
  brokerDefaults,
  redactBrokerUrl,
  type BrokerKind,
  type BrokerSettings,
  type RelayOptions,
} from './names.js';

export {
  brokerDefaults,
  redactBrokerUrl,
  type BrokerKind,
  type BrokerSettings,
  type RelayOptions,
} from './names.js';

function kindOf(url: URL): BrokerKind | undefined {
  if (url.protocol === 'nats:') return 'nats';
  if (url.protocol === 'amqp:' || url.protocol === 'amqps:') return 'amqp';
  return undefined;
}

function envName(env: Env, name: string, fallback: string, pattern: RegExp, accepts: string) {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  if (pattern.test(value)) return value;
  throw new ConfigError(name, value, accepts);
}

/**
 * The broker settings from EVENTS_BROKER_URL, EVENTS_SUBJECT_PREFIX, EVENTS_STREAM and
 * EVENTS_EXCHANGE; undefined when EVENTS_BROKER_URL is unset (events stay in-process). A URL that
 * is not `nats://`, `amqp://` or `amqps://` with a host, or a name the broker would refuse, throws
 * `ConfigError` (the URL shown without its credentials).
 *
 * @example
 * const broker = eventsBrokerFromEnv(process.env); // EVENTS_BROKER_URL=nats://nats:4222
 */
export function eventsBrokerFromEnv(env: Env): BrokerSettings | undefined {
  const subjectPrefix = envName(
    env,
    'EVENTS_SUBJECT_PREFIX',
    brokerDefaults.subjectPrefix,
    /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/,
    'dot-separated tokens of letters, digits, _ and - (a NATS subject without wildcards)',
  );
  const stream = envName(
    env,
    'EVENTS_STREAM',
    brokerDefaults.stream,
    /^[A-Za-z0-9_-]{1,255}$/,
    'letters, digits, _ and - (a JetStream stream name)',
  );
  const exchange = envName(
    env,
    'EVENTS_EXCHANGE',
    brokerDefaults.exchange,
    /^(?!amq\.)[A-Za-z0-9_.:-]{1,255}$/,
    'letters, digits, _, -, . and : not starting with amq. (a RabbitMQ exchange name)',
  );
  const raw = env.EVENTS_BROKER_URL?.trim();
  if (raw === undefined || raw === '') return undefined;
  const accepts = 'a nats://, amqp:// or amqps:// URL with a host';
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError('EVENTS_BROKER_URL', redactBrokerUrl(raw), accepts);
  }
  const kind = kindOf(parsed);
  if (!kind || parsed.hostname === '') {
    throw new ConfigError('EVENTS_BROKER_URL', redactBrokerUrl(raw), accepts);
  }
  return { kind, url: raw, subjectPrefix, stream, exchange };
}

/**
 * The relay to the configured broker. Its client library (`@nats-io/transport-node` and
 * `@nats-io/jetstream`, or `amqplib`) is imported when the relay starts, so an app without a
 * broker never loads one.
 *
 * @example
 * const relay = createBrokerRelay({ kind: 'nats', url: 'nats://127.0.0.1:4222' }, { logger });
 * const bus = new EventBus<AppEvents>({ knex, logger, relay });
 */
export function createBrokerRelay(
  settings: BrokerSettings,
  options: RelayOptions = {},
): EventRelay {
  return new LazyRelay(settings, options);
}

class LazyRelay implements EventRelay {
  readonly kind: BrokerKind;
  private inner: EventRelay | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly settings: BrokerSettings,
    private readonly options: RelayOptions,
  ) {
    this.kind = settings.kind;
  }

  async start(): Promise<void> {
    if (!this.inner) {
      const inner =
        this.settings.kind === 'nats'
          ? new (await import('./nats-relay.js')).NatsRelay(this.settings, this.options)
          : new (await import('./amqp-relay.js')).AmqpRelay(this.settings, this.options);
      inner.onReady(() => {
        for (const listener of this.listeners) listener();
      });
      this.inner = inner;
    }
    await this.inner.start();
  }

  publish(message: RelayMessage): Promise<void> {
    if (!this.inner) return Promise.reject(new Error(`the ${this.kind} relay is not started`));
    return this.inner.publish(message);
  }

  isConnected(): boolean {
    return this.inner?.isConnected() ?? false;
  }

  onReady(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    await this.inner?.stop();
  }
}
