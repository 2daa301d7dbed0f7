// @slicekit/runtime/tracing: OpenTelemetry traces configured by the standard OTEL_* variables,
// started from the app's src/instrument.ts; the SDK loads only when they turn tracing on.
export {
  startTracing,
  stopTracing,
  TracingError,
  type StopTracingOptions,
  type TracingOptions,
} from './start.js';
export {
  OTLP_PROTOCOLS,
  TRACE_SAMPLERS,
  tracingSettings,
  type OtlpProtocol,
  type TraceSampler,
  type TracingSettings,
} from './settings.js';
