// Names and messages of the diagnostics channels the metrics listen to. The parts that publish
// (the HTTP middleware, the idempotency guard, the broker relay) depend only on node:diagnostics_channel,
// never on prom-client, and publish only while someone listens.

/** `{ outcome }`, once per guarded request, published by the idempotency guard. */
export const IDEMPOTENCY_CHANNEL = 'slicekit:idempotency';

/** `{ name }`: an event the broker confirmed. */
export const EVENTS_PUBLISHED_CHANNEL = 'slicekit:events:published';

/** `{ name }`: a publish the broker refused, or that failed. */
export const EVENTS_FAILED_CHANNEL = 'slicekit:events:failed';

/** `HttpRequestMessage`, once per finished response, published by `httpMetrics()`. */
export const HTTP_REQUEST_CHANNEL = 'slicekit:http:request';

/** What the idempotency guard decided for one request. */
export type IdempotencyOutcome = 'new' | 'replayed' | 'conflict' | 'key_reused';

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
