// Loaded before the app (`node --import ./dist/src/instrument.js dist/src/server.js`): starts
// OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set, so Express, Knex and pino are instrumented as they load; otherwise it does nothing.
import { ConfigError } from '@slicekit/runtime/config';
import { startTracing, TracingError } from '@slicekit/runtime/tracing';

await startTracing({ serviceName: 'shop' }).catch((error: unknown) => {
  if (!(error instanceof ConfigError || error instanceof TracingError)) throw error;
  process.stderr.write(`cannot start: ${error.message}\n`);
  process.exit(1);
});
