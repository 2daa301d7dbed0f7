// The relay to RabbitMQ: each event on a durable topic exchange, routing key `<EventName>`,
// persistent, its UUID as `message_id`, confirmed by the broker (a confirm channel).
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { safeError } from '../../logging/index.js';
import { EventRefusedError, type EventRelay, type RelayMessage } from '../relay.js';
import { pause } from './recent-ids.js';
import {
  brokerDefaults,
  redactBrokerUrl,
  type BrokerSettings,
  type RelayOptions,
} from './names.js';

/**
 * `url` with a 10 s heartbeat unless it sets one: a broker that vanishes without closing the
 * connection (a network partition) is then noticed in seconds, not at the next TCP timeout.
 */
export function withHeartbeat(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('heartbeat')) parsed.searchParams.set('heartbeat', '10');
  return parsed.toString();
}

export class AmqpRelay implements EventRelay {
  readonly kind = 'amqp';
  private connection: ChannelModel | undefined;
  private channel: ConfirmChannel | undefined;
  private stopped = false;
  private connecting: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly exchange: string;
  private readonly timeout: number;

  constructor(
    private readonly settings: BrokerSettings,
    private readonly options: RelayOptions,
  ) {
    this.exchange = settings.exchange ?? brokerDefaults.exchange;
    this.timeout = options.publishTimeoutMs ?? 5000;
  }

  start(): Promise<void> {
    this.stopped = false;
    this.reconnect();
    return Promise.resolve();
  }

  /** Connects in the background, with back-off, unless already connecting or connected. */
  private reconnect(): void {
    if (this.connecting || this.channel || this.stopped) return;
    this.connecting = this.connectUntilUp().finally(() => (this.connecting = undefined));
  }

  private async connectUntilUp(): Promise<void> {
    let delay = 250;
    while (!this.stopped) {
      let connection: ChannelModel | undefined;
      try {
        connection = await connect(withHeartbeat(this.settings.url), { timeout: this.timeout });
        // Logged on 'close'; an 'error' without a listener would crash the process.
        connection.on('error', () => undefined);
        const channel = await connection.createConfirmChannel();
        channel.on('error', () => undefined);
        await channel.assertExchange(this.exchange, 'topic', { durable: true });
        if (this.stopped) {
          await connection.close().catch(() => undefined);
          return;
        }
        const lost = () => this.lost(connection as ChannelModel);
        connection.on('close', lost);
        channel.on('close', lost);
        this.connection = connection;
        this.channel = channel;
        this.options.logger?.info(
          { broker: redactBrokerUrl(this.settings.url), exchange: this.exchange },
          'events: relaying to RabbitMQ',
        );
        for (const listener of this.listeners) listener();
        return;
      } catch (error) {
        await connection?.close().catch(() => undefined);
        this.options.logger?.warn(
          { err: safeError(error), broker: redactBrokerUrl(this.settings.url) },
          'events: cannot connect to the RabbitMQ broker yet; retrying',
        );
        await pause(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  /** The connection or its channel closed: drop both and connect again (unless stopping). */
  private lost(connection: ChannelModel): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.channel = undefined;
    void connection.close().catch(() => undefined);
    if (this.stopped) return;
    this.options.logger?.warn(
      { broker: redactBrokerUrl(this.settings.url) },
      'events: disconnected from the RabbitMQ broker; events stay pending',
    );
    this.reconnect();
  }

  publish({ body, traceparent }: RelayMessage): Promise<void> {
    const channel = this.channel;
    if (!channel) return Promise.reject(new Error('not connected to the RabbitMQ broker'));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`RabbitMQ did not confirm within ${this.timeout} ms`)),
        this.timeout,
      );
      try {
        channel.publish(
          this.exchange,
          body.type,
          Buffer.from(JSON.stringify(body)),
          {
            persistent: true,
            messageId: body.id,
            type: body.type,
            contentType: 'application/json',
            timestamp: Math.floor(Date.parse(body.occurredOn) / 1000),
            headers: traceparent ? { traceparent } : {},
          },
          (error: unknown) => {
            clearTimeout(timer);
            if (!error) resolve();
            // A nack: RabbitMQ refused this message alone. The channel closing also fails the
            // callbacks in flight, and that is an outage.
            else if (error instanceof Error && error.message === 'message nacked') {
              reject(new EventRefusedError('RabbitMQ refused the event (nack)', { cause: error }));
            } else reject(error instanceof Error ? error : new Error('RabbitMQ refused it'));
          },
        );
      } catch (error) {
        // The channel closed between the check and the call.
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  isConnected(): boolean {
    return this.channel !== undefined;
  }

  onReady(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const connection = this.connection;
    this.connection = undefined;
    this.channel = undefined;
    await connection?.close().catch(() => undefined);
  }
}
