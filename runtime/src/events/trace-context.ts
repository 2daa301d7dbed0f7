// The W3C `traceparent` of the active trace, for an event recorded inside it. @opentelemetry/api is
// an optional peer: without it, or without an SDK registered, nothing is captured.
type OtelApi = typeof import('@opentelemetry/api');

const otel: OtelApi | undefined = await import('@opentelemetry/api').catch(() => undefined);

/** `traceparent` of the active context; null when no propagator is registered or no span is on. */
export function captureTraceparent(): string | null {
  if (!otel) return null;
  const carrier: Record<string, string> = {};
  otel.propagation.inject(otel.context.active(), carrier);
  const value = carrier.traceparent;
  // The column holds 64 characters; version 00 is 55, a later version may append fields.
  return typeof value === 'string' && value.length <= 64 ? value : null;
}
