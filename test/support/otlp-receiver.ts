// A minimal OTLP/HTTP trace receiver for tests: takes the JSON exports an app sends with
// OTEL_EXPORTER_OTLP_PROTOCOL=http/json at /v1/traces, as a collector would, and keeps the spans.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty or absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client... (OTLP's SpanKind). */
  kind: number;
  /** The instrumentation that made it, e.g. `@opentelemetry/instrumentation-knex`. */
  scope: string;
  attributes: Record<string, unknown>;
  /** The resource's `service.name`. */
  service: unknown;
}

export interface OtlpReceiver {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

function flatten(attributes: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]]),
  );
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: (Omit<ReceivedSpan, 'scope' | 'attributes' | 'service'> & {
        attributes?: KeyValue[];
      })[];
    }[];
  }[];
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as ExportRequest;
      for (const resource of request.resourceSpans ?? []) {
        const service = flatten(resource.resource?.attributes)['service.name'];
        for (const scoped of resource.scopeSpans ?? []) {
          for (const span of scoped.spans ?? []) {
            spans.push({
              ...span,
              scope: scoped.scope?.name ?? '',
              attributes: flatten(span.attributes),
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
