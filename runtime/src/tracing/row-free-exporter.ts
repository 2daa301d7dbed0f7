// Keeps row values out of exported spans, as the logs do (docs/reliability.md, "Bad input and
// logs"): a failed query's span records the database error, whose message and stack quote the
// values it failed on (Knex prefixes the statement with its values inlined; MySQL's "Duplicate
// entry 'alice@example.com'"). Such a span goes out with the error's code only.
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';

// The SDK's own types, through the one package the runtime declares for them.
type SpanExporter = NodeSDKConfiguration['traceExporter'];
type ReadableSpan = Parameters<SpanExporter['export']>[0][number];
type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];

const ERROR = 2; // SpanStatusCode.ERROR, without loading @opentelemetry/api for one number

interface MutableSpan {
  status: { code: number; message?: string };
  events: { name: string; attributes?: Record<string, unknown> }[];
}

function withoutRowValues(span: ReadableSpan): void {
  if (span.attributes['db.system.name'] === undefined || span.status.code !== ERROR) return;
  const mutable = span as unknown as MutableSpan;
  let type: unknown;
  for (const event of mutable.events) {
    if (event.name !== 'exception' || !event.attributes) continue;
    type = event.attributes['exception.type'];
    event.attributes['exception.message'] = `database error ${String(type)}`;
    delete event.attributes['exception.stacktrace'];
  }
  mutable.status = { code: ERROR, message: `database error ${String(type)}` };
}

/** `exporter`, receiving the failed queries' spans with the error's code in place of its text. */
export function rowFreeExporter(exporter: SpanExporter): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      for (const span of spans) withoutRowValues(span);
      exporter.export(spans, done);
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
