// Whether the standard OTEL_* variables turn tracing on, read strictly: a value the OpenTelemetry
// SDK would quietly replace by its default (an unknown protocol, a ratio of 5) stops the app at
// start instead, as every other setting does.
import { envBoolean, ConfigError, type Env } from '../config/index.js';
import { REDACTED } from '../logging/index.js';

/** How spans leave the process: OTLP over HTTP, with protobuf or JSON bodies. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The samplers the SDK reads from OTEL_TRACES_SAMPLER. */
export const TRACE_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/** What the OTEL_* variables ask for, when they turn tracing on. */
export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL. @default 'http/protobuf' */
  protocol: OtlpProtocol;
  /** OTEL_TRACES_SAMPLER. @default 'parentbased_always_on' */
  sampler: TraceSampler;
  /** OTEL_TRACES_SAMPLER_ARG, the ratio of the `traceidratio` samplers. @default 1 */
  ratio: number;
}

function present(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

// Exactly as listed: the SDK reads these variables again itself and knows no other spelling.
function exactChoice<const C extends string>(
  env: Env,
  name: string,
  choices: readonly C[],
  fallback: NoInfer<C>,
): C {
  const value = present(env, name);
  if (value === undefined) return fallback;
  const found = choices.find((choice) => choice === value);
  if (found !== undefined) return found;
  throw new ConfigError(name, value, `one of ${choices.join(', ')} (lower case)`);
}

// A URL that does not parse may still carry a password (`user:secret@host`): not repeated.
function checkedEndpoint(name: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return value;
  const shown = value.includes('@') ? REDACTED : value;
  throw new ConfigError(name, shown, 'an http:// or https:// URL of an OTLP receiver');
}

/**
 * The tracing settings, or `undefined` when tracing is off: neither
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT is set, OTEL_SDK_DISABLED is
 * true, or OTEL_TRACES_EXPORTER is `none`. A value the SDK would not use as written throws
 * `ConfigError`.
 *
 * @example
 * tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.protocol // 'http/protobuf'
 */
export function tracingSettings(env: Env = process.env): TracingSettings | undefined {
  if (envBoolean(env, 'OTEL_SDK_DISABLED', false)) return undefined;
  const exporter = exactChoice(env, 'OTEL_TRACES_EXPORTER', ['otlp', 'none'], 'otlp');
  const endpointName = present(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const endpoint = present(env, endpointName);
  if (exporter === 'none' || endpoint === undefined) return undefined;

  const protocolName = present(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const sampler = exactChoice(env, 'OTEL_TRACES_SAMPLER', TRACE_SAMPLERS, 'parentbased_always_on');
  const ratioText = present(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioText === undefined ? 1 : Number(ratioText);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(ratioText ?? '1') || !(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', ratioText ?? '', 'a ratio from 0 to 1');
  }
  return {
    endpoint: checkedEndpoint(endpointName, endpoint),
    protocol: exactChoice(env, protocolName, OTLP_PROTOCOLS, 'http/protobuf'),
    sampler,
    ratio,
  };
}
