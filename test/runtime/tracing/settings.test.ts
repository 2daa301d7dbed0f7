// When the OTEL_* variables turn tracing on, and the values refused at start rather than quietly
// replaced by the SDK's defaults; and the failed query spans going out without row values.
import { expect } from 'chai';
import { ConfigError } from '@slicekit/runtime/config';
import { tracingSettings } from '@slicekit/runtime/tracing';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { rowFreeExporter } from '@slicekit/runtime/internal';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

function refusal(env: Record<string, string>): ConfigError {
  try {
    tracingSettings(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  expect.fail('the settings were accepted');
}

describe('tracing settings', () => {
  it('are off unless an OTLP endpoint is named', () => {
    expect(tracingSettings({})).to.equal(undefined);
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'shop', OTEL_TRACES_SAMPLER: 'bogus' })).to.equal(
      undefined,
    );
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).to.equal(undefined);
  });

  it('are on with either endpoint, with the SDK defaults', () => {
    expect(tracingSettings(endpoint)).to.deep.equal({
      endpoint: 'http://collector:4318',
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    const traces = 'https://collector/v1/traces';
    expect(tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: traces })).to.include(
      { endpoint: traces },
    );
  });

  it('stay off when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none', () => {
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).to.equal(undefined);
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).to.equal(undefined);
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).to.not.equal(undefined);
  });

  it('take the protocol, sampler and ratio as the SDK spells them', () => {
    expect(
      tracingSettings({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }),
    ).to.include({ protocol: 'http/json', sampler: 'parentbased_traceidratio', ratio: 0.25 });
  });

  it('refuse what the SDK would replace by its default, naming the variable', () => {
    for (const [name, value] of [
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
      ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'HTTP/JSON'],
      ['OTEL_TRACES_SAMPLER', 'sometimes'],
      ['OTEL_TRACES_SAMPLER_ARG', '5'],
      ['OTEL_TRACES_SAMPLER_ARG', 'half'],
      ['OTEL_TRACES_EXPORTER', 'zipkin'],
      ['OTEL_SDK_DISABLED', 'maybe'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ] as const) {
      expect(refusal({ ...endpoint, [name]: value }).variable, value).to.equal(name);
    }
  });

  it('do not repeat an endpoint that may hold a password', () => {
    const error = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'user:secret@collector' });
    expect(error.message).to.not.include('secret');
  });
});

describe('failed query spans', () => {
  it('go out with the database error code only, not its message or stack', async () => {
    const exported: ReadableSpan[] = [];
    const inner = {
      export: (spans: ReadableSpan[], done: (result: { code: number }) => void) => {
        exported.push(...spans);
        done({ code: 0 });
      },
      shutdown: async () => {},
    } as SpanExporter;
    const failed = {
      attributes: { 'db.system.name': 'mysql2' },
      status: { code: 2, message: "Duplicate entry 'alice@example.com' for key 'email'" },
      events: [
        {
          name: 'exception',
          attributes: {
            'exception.type': 'ER_DUP_ENTRY',
            'exception.message': "Duplicate entry 'alice@example.com' for key 'email'",
            'exception.stacktrace': "Error: insert into users values ('alice@example.com')",
          },
        },
      ],
    } as unknown as ReadableSpan;
    const request = {
      attributes: { 'http.route': '/v1/users' },
      status: { code: 2, message: 'kept' },
      events: [],
    } as unknown as ReadableSpan;
    rowFreeExporter(inner).export([failed, request], () => {});
    expect(JSON.stringify(exported[0])).to.not.include('alice');
    expect(exported[0]?.status.message).to.equal('database error ER_DUP_ENTRY');
    expect(exported[0]?.events[0]?.attributes).to.deep.equal({
      'exception.type': 'ER_DUP_ENTRY',
      'exception.message': 'database error ER_DUP_ENTRY',
    });
    expect(exported[1]?.status.message).to.equal('kept');
  });
});
