// Starts and stops the OpenTelemetry SDK. Untraced, startTracing reads a few variables and returns:
// no OpenTelemetry package is loaded, no loader hook registered, nothing patched.
import { register } from 'node:module';
import { SlicekitError } from '../errors.js';
import { createInstrumentations, HOOKED_PACKAGES } from './instrumentations.js';
import { rowFreeExporter } from './row-free-exporter.js';
import { tracingSettings, type OtlpProtocol } from './settings.js';

/** Raised when the OTEL_* variables turn tracing on but the SDK is not installed. */
export class TracingError extends SlicekitError {
  override name = 'TracingError';

  constructor(code: 'tracing_sdk_missing', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Options of `startTracing`. */
export interface TracingOptions {
  /**
   * `service.name` of the spans when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES
   * names one. @default the SDK's `unknown_service:node`
   */
  serviceName?: string;
}

/** Options of `stopTracing`. */
export interface StopTracingOptions {
  /** Longest wait for the spans still buffered to reach the receiver. @default 3000 */
  timeoutMs?: number;
}

interface RunningSdk {
  shutdown(): Promise<void>;
}

let running: RunningSdk | undefined;

// Resolved from the SDK's own folder, so the hook is the one its instrumentations talk to.
function registerLoaderHook(): void {
  let sdk: string;
  try {
    sdk = import.meta.resolve('@opentelemetry/sdk-node');
  } catch (error) {
    throw new TracingError(
      'tracing_sdk_missing',
      'OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on, but @opentelemetry/sdk-node is not installed',
      { cause: error },
    );
  }
  register('@opentelemetry/instrumentation/hook.mjs', sdk, {
    data: { include: [...HOOKED_PACKAGES] },
  });
}

async function traceExporter(protocol: OtlpProtocol) {
  // Both read the endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables.
  const { OTLPTraceExporter } =
    protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  return rowFreeExporter(new OTLPTraceExporter());
}

/**
 * Starts OpenTelemetry tracing when the OTEL_* variables ask for it (see `tracingSettings`) and
 * resolves to whether it did. Call it before the app's modules are imported (the app's
 * `src/instrument.ts`, loaded with `node --import`): the instrumentations patch Express, Knex and
 * pino as they load. Everything else (sampler, batching, resource, propagators) is the SDK's own
 * reading of the standard variables. A bad value throws `ConfigError`.
 *
 * @example
 * await startTracing({ serviceName: 'shop' });
 */
export async function startTracing(options: TracingOptions = {}): Promise<boolean> {
  if (running) return true;
  const settings = tracingSettings(process.env);
  if (!settings) return false;
  registerLoaderHook();
  const [{ NodeSDK }, instrumentations, exporter] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    createInstrumentations(),
    traceExporter(settings.protocol),
  ]);
  // The SDK's `serviceName` would override the variables, so it is only the fallback.
  const named =
    Boolean(process.env.OTEL_SERVICE_NAME?.trim()) ||
    /(^|,)\s*service\.name\s*=/.test(process.env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : options.serviceName,
    traceExporter: exporter,
    instrumentations,
    // Traces only: the app's metrics are Prometheus on METRICS_PORT and its logs go to stdout.
    // Either is sent over OTLP too when its own variable asks for it.
    ...(process.env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(process.env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  running = sdk;
  return true;
}

/**
 * Sends the spans still buffered and stops the SDK; does nothing when tracing is off. Call it
 * last in the shutdown, before `process.exit`, so the last requests' spans are not lost.
 *
 * @example
 * await stopTracing();
 * process.exit(0);
 */
export async function stopTracing(options: StopTracingOptions = {}): Promise<void> {
  const sdk = running;
  if (!sdk) return;
  running = undefined;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((done) => {
    timer = setTimeout(done, options.timeoutMs ?? 3000);
    timer.unref();
  });
  // A receiver that does not answer costs the shutdown the bound, not the exporter's timeout.
  await Promise.race([sdk.shutdown().catch(() => undefined), bound]);
  clearTimeout(timer);
}
