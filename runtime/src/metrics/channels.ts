// Names and messages of the diagnostics channels the metrics listen to. The parts that publish
// (the HTTP middleware, the idempotency guard, the broker relay) depend only on node:diagnostics_channel,
// never on prom-client, and publish only while someone listens.

import type { IdempotencyOutcome } from '../idempotency/index.js';

// Each publisher names its own channel; only the names are imported here.
export { EVENTS_FAILED_CHANNEL, EVENTS_PUBLISHED_CHANNEL } from '../events/index.js';
export { IDEMPOTENCY_CHANNEL, type IdempotencyOutcome } from '../idempotency/index.js';

/** `HttpRequestMessage`, once per finished response, published by `httpMetrics()`. */
export const HTTP_REQUEST_CHANNEL = 'slicekit:http:request';

export interface IdempotencyMessage {
  outcome: IdempotencyOutcome;
}

export interface EventMessage {
  /** The event's name, e.g. `ProductCreated`. */
  name: string;
}

export interface HttpRequestMessage {
  /** The method, or `_OTHER` for one outside the HTTP standard's. */
  method: string;
  /** The route template (`/v1/products/:id`), or `unmatched` when no route answered. */
  route: string;
  statusCode: number;
  /** From the request reaching the middleware to the response's last byte handed to the OS. */
  durationSeconds: number;
}
