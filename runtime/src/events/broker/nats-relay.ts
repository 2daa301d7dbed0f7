// The relay to NATS JetStream: each event on `<prefix>.<EventName>` in the stream, its UUID as
// `Nats-Msg-Id` (JetStream drops a copy within the stream's duplicate window), confirmed by PubAck.
import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
} from '@nats-io/jetstream';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { safeError } from '../../logging/index.js';
import { EventRefusedError, type EventRelay, type RelayMessage } from '../relay.js';
import { pause } from './recent-ids.js';
import {
  brokerDefaults,
  redactBrokerUrl,
  type BrokerSettings,
  type RelayOptions,
} from './names.js';

/** Connection options of a `nats://[user:pass@]host[:port]` URL (a user alone is a token). */
export function natsConnectOptions(url: string) {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  return {
    servers: `${parsed.hostname}:${parsed.port || '4222'}`,
    ...(user && pass ? { user, pass } : user ? { token: user } : {}),
  };
}

/** True when NATS subject filter `filter` matches every subject under `subject` (`a.b.>`). */
export function filterCovers(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i += 1) {
    if (f[i] === '>') return true;
    if (i >= s.length || s[i] === '>') return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

/**
 * Creates the stream taking `<prefix>.>` unless a stream of that name exists; an existing stream
 * that does not take `<prefix>.>` (EVENTS_SUBJECT_PREFIX changed) gets it added to its subjects,
 * since every publish would otherwise find no stream. Rejects when the update is refused (another
 * stream already takes those subjects): the relay then stays not ready and logs why.
 */
export async function ensureStream(nc: NatsConnection, stream: string, prefix: string) {
  const jsm = await jetstreamManager(nc);
  const wanted = `${prefix}.>`;
  try {
    const { config } = await jsm.streams.info(stream);
    const subjects = config.subjects ?? [];
    if (subjects.some((filter) => filterCovers(filter, wanted))) return;
    await jsm.streams.update(stream, { ...config, subjects: [...subjects, wanted] });
  } catch (error) {
    const missing =
      error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
    if (!missing) throw error;
    await jsm.streams.add({ name: stream, subjects: [wanted] });
  }
}

export class NatsRelay implements EventRelay {
  readonly kind = 'nats';
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private ready = false;
  private stopped = false;
  private connecting: Promise<void> | undefined;
  private preparing: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly prefix: string;
  private readonly stream: string;
  private readonly timeout: number;

  constructor(
    private readonly settings: BrokerSettings,
    private readonly options: RelayOptions,
  ) {
    this.prefix = settings.subjectPrefix ?? brokerDefaults.subjectPrefix;
    this.stream = settings.stream ?? brokerDefaults.stream;
    this.timeout = options.publishTimeoutMs ?? 5000;
  }

  start(): Promise<void> {
    this.stopped = false;
    this.connecting ??= this.connectUntilUp().finally(() => (this.connecting = undefined));
    return Promise.resolve();
  }

  /** First connection: retried with back-off until it succeeds (the client reconnects after). */
  private async connectUntilUp(): Promise<void> {
    let delay = 250;
    while (!this.stopped) {
      try {
        const nc = await connect({
          ...natsConnectOptions(this.settings.url),
          name: 'slicekit-events-relay',
          timeout: this.timeout,
          reconnect: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
        });
        if (this.stopped) {
          await nc.close();
          return;
        }
        this.nc = nc;
        void this.watch(nc);
        await this.prepare();
        return;
      } catch (error) {
        this.warn(error, 'events: cannot connect to the NATS broker yet; retrying');
        await pause(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        this.ready = false;
        this.options.logger?.warn(
          { broker: redactBrokerUrl(this.settings.url) },
          'events: disconnected from the NATS broker; events stay pending',
        );
      } else if (status.type === 'reconnect') {
        void this.prepare();
      }
    }
  }

  /** Makes sure the stream exists, then announces the relay ready; retried until it is. */
  private prepare(): Promise<void> {
    this.preparing ??= (async () => {
      let delay = 250;
      while (!this.stopped && this.nc && !this.nc.isClosed()) {
        try {
          await ensureStream(this.nc, this.stream, this.prefix);
          this.js = jetstream(this.nc);
          this.ready = true;
          this.options.logger?.info(
            { broker: redactBrokerUrl(this.settings.url), stream: this.stream },
            'events: relaying to NATS JetStream',
          );
          for (const listener of this.listeners) listener();
          return;
        } catch (error) {
          this.warn(error, `events: cannot set up the JetStream stream ${this.stream}; retrying`);
          await pause(delay);
          delay = Math.min(delay * 2, 5000);
        }
      }
    })().finally(() => (this.preparing = undefined));
    return this.preparing;
  }

  private warn(error: unknown, message: string) {
    this.options.logger?.warn(
      { err: safeError(error), broker: redactBrokerUrl(this.settings.url) },
      message,
    );
  }

  async publish({ body, traceparent }: RelayMessage): Promise<void> {
    const js = this.js;
    if (!this.ready || !js) throw new Error('not connected to the NATS broker');
    const h = headers();
    if (traceparent) h.set('traceparent', traceparent);
    try {
      await js.publish(`${this.prefix}.${body.type}`, JSON.stringify(body), {
        msgID: body.id,
        headers: h,
        timeout: this.timeout,
      });
    } catch (error) {
      // No stream takes the subject any more (deleted while connected): set it up again.
      const name = (error as { name?: string }).name;
      if (this.ready && name === 'NoRespondersError') {
        this.ready = false;
        void this.prepare();
      }
      // Over max_payload (the client checks it before sending), or the stream answering with an
      // error for this message: the connection is fine, only this event is refused. Timeouts,
      // no responders and closed connections are outages and stay as they are.
      if (name === 'InvalidArgumentError' || error instanceof JetStreamApiError) {
        throw new EventRefusedError(`NATS refused the event: ${(error as Error).message}`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  isConnected(): boolean {
    return this.ready;
  }

  onReady(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ready = false;
    const nc = this.nc;
    this.nc = undefined;
    this.js = undefined;
    await nc?.close();
  }
}
