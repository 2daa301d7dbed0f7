// The metrics fed by diagnostics channels: request durations (from `httpMetrics()`), idempotency
// outcomes (the guard) and events delivered or refused (the broker relay).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type * as PromClient from 'prom-client';
import { boundedLabel } from './bounded.js';
import {
  EVENTS_FAILED_CHANNEL,
  EVENTS_PUBLISHED_CHANNEL,
  HTTP_REQUEST_CHANNEL,
  IDEMPOTENCY_CHANNEL,
  type EventMessage,
  type HttpRequestMessage,
  type IdempotencyMessage,
} from './channels.js';

/** OpenTelemetry's recommended boundaries for `http.server.request.duration`, in seconds. */
export const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

const outcomes = new Set(['new', 'replayed', 'conflict', 'key_reused']);

/** Creates the channel-fed metrics and subscribes them; the function returned unsubscribes. */
export function channelMetrics(
  client: typeof PromClient,
  registry: PromClient.Registry,
  maxLabelValues: number,
): () => void {
  const registers = [registry];
  const duration = new client.Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests, by method, route template and status code.',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const idempotency = new client.Counter({
    name: 'slicekit_idempotency_requests_total',
    help: 'Requests the idempotency guard decided, by outcome: new, replayed, conflict, key_reused.',
    labelNames: ['outcome'],
    registers,
  });
  const published = new client.Counter({
    name: 'slicekit_events_published_total',
    help: 'Events the broker confirmed, by event name.',
    labelNames: ['event_name'],
    registers,
  });
  const failed = new client.Counter({
    name: 'slicekit_events_failed_total',
    help: 'Event publishes the broker refused or that failed, by event name.',
    labelNames: ['event_name'],
    registers,
  });
  // Every outcome shows from the first scrape, at 0, so a rate over it needs no special case.
  for (const outcome of outcomes) idempotency.inc({ outcome }, 0);

  const route = boundedLabel(maxLabelValues);
  const eventName = boundedLabel(maxLabelValues);
  const subscriptions: [string, (message: unknown) => void][] = [
    [
      HTTP_REQUEST_CHANNEL,
      (message) => {
        const m = message as HttpRequestMessage;
        duration.observe(
          {
            http_request_method: m.method,
            http_route: route(m.route),
            http_response_status_code: m.statusCode,
          },
          m.durationSeconds,
        );
      },
    ],
    [
      IDEMPOTENCY_CHANNEL,
      (message) => {
        const { outcome } = message as IdempotencyMessage;
        if (outcomes.has(outcome)) idempotency.inc({ outcome });
      },
    ],
    [
      EVENTS_PUBLISHED_CHANNEL,
      (message) => published.inc({ event_name: eventName(String((message as EventMessage).name)) }),
    ],
    [
      EVENTS_FAILED_CHANNEL,
      (message) => failed.inc({ event_name: eventName(String((message as EventMessage).name)) }),
    ],
  ];
  for (const [name, listener] of subscriptions) subscribe(name, listener);
  return () => {
    for (const [name, listener] of subscriptions) unsubscribe(name, listener);
  };
}
