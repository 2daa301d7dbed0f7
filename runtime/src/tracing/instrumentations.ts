// The OpenTelemetry instrumentations a slicekit app is traced with, loaded only once tracing is on:
// a server span per request named by its route template, a span per database query through Knex
// (the same on SQLite, PostgreSQL and MySQL), and trace ids in every pino log line.
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { SECRET_QUERY_PARAMETERS } from '../logging/index.js';

/**
 * Packages an app imports from ESM that an instrumentation patches; only these go through the
 * import-in-the-middle loader, so every other module loads as it would untraced. Knex's driver
 * modules (pg, mysql2, better-sqlite3) and node:http are required from CommonJS code, which the
 * instrumentations reach without a loader.
 */
export const HOOKED_PACKAGES: readonly string[] = ['express', 'knex', 'pino'];

/**
 * Requests left untraced: the probes an orchestrator sends every few seconds and the metrics
 * scrape, which would outnumber the requests a trace is wanted for.
 */
function untraced(path: string): boolean {
  return path === '/metrics' || path === '/health/live' || path === '/health/ready';
}

// The query parameters logs hide are hidden from the spans' `url.query` too, with the spellings
// the SDK hides by default.
const secretParameters = [
  ...SECRET_QUERY_PARAMETERS,
  ...SECRET_QUERY_PARAMETERS.map((name) => name.replaceAll('_', '-')),
  'Signature',
  'AWSAccessKeyId',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
  'X-Goog-Signature',
  'X-Goog-Credential',
];

/** The instrumentations, configured; each package is imported here and nowhere else. */
export async function createInstrumentations(): Promise<
  NonNullable<NodeSDKConfiguration['instrumentations']>
> {
  const [http, express, knex, pino] = await Promise.all([
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-knex'),
    import('@opentelemetry/instrumentation-pino'),
  ]);
  return [
    new http.HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => untraced((request.url ?? '').split('?', 1)[0] ?? ''),
      redactedQueryParamsServer: secretParameters,
    }),
    // Express names the route (`http.route`), and the HTTP instrumentation names the server span
    // after it (`GET /v1/products/:id`). A span per middleware and handler would only repeat the
    // server span's timing, so none is made: queries are children of the request span itself.
    new express.ExpressInstrumentation({
      ignoreLayersType: [
        express.ExpressLayerType.MIDDLEWARE,
        express.ExpressLayerType.ROUTER,
        express.ExpressLayerType.REQUEST_HANDLER,
      ],
    }),
    // `db.query.text` with placeholders, never the values bound to them. Queries outside a
    // request (migrations, the outbox relay polling) would each be a trace of one span: none.
    new knex.KnexInstrumentation({ maxQueryLength: 1000, requireParentSpan: true }),
    // trace_id, span_id and trace_flags in each line logged while a span is active; the lines
    // themselves stay on stdout rather than going out as OpenTelemetry log records too.
    new pino.PinoInstrumentation({ disableLogSending: true }),
  ];
}
