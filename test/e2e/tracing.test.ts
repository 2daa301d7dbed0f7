// Traces of a generated app, built and started as in production (`node --import
// ./dist/src/instrument.js dist/src/server.js`) with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a
// receiver of the test: a server span per request named by its route template that continues the
// caller's `traceparent`, a child span per query on SQLite, PostgreSQL and MySQL, and log lines
// carrying the span's ids. With no OTEL_* variable the app starts without loading OpenTelemetry.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver.js';
import { allDialects, useDatabase, type Dialect } from '../support/services.js';
import { freePort, run, serve, type Served } from './support/processes.js';
import { generateApp } from '../generators/support/generated-app.js';
import { ensureRuntimeBuilt, plainEnv, scratchFolder } from './support/workspace.js';

const start = ['--import', './dist/src/instrument.js', 'dist/src/server.js'];

// The database names the knex instrumentation reports as `db.system.name` (its driver's name where
// it has no mapping to OpenTelemetry's).
const systems: Record<Dialect, string> = {
  sqlite: 'better-sqlite3',
  postgres: 'postgresql',
  mysql: 'mysql2',
};

// Makes every `@opentelemetry/*` package unresolvable, as if it were not installed.
const withoutOpenTelemetry = {
  'no-otel.mjs': `import { register } from 'node:module';
register('./no-otel-hooks.mjs', import.meta.url);
`,
  'no-otel-hooks.mjs': `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) {
    throw Object.assign(new Error('not installed: ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}
`,
};

let scratch: ReturnType<typeof scratchFolder>;
let appDir: string;
let receiver: OtlpReceiver;

before(async function () {
  this.timeout(180_000);
  scratch = scratchFolder('tracing');
  appDir = join(scratch.path, 'shop');
  await generateApp(appDir);
  for (const [file, text] of Object.entries(withoutOpenTelemetry)) {
    writeFileSync(join(appDir, file), text);
  }
  ensureRuntimeBuilt();
  await run('npm', ['run', 'build'], { cwd: appDir, env: plainEnv() });
  receiver = await startOtlpReceiver();
});

after(async () => {
  await receiver?.close();
  scratch?.remove();
});

/** A W3C `traceparent` from a caller: its trace id and its own span id. */
function callerContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

async function spansOf(traceId: string, done: (spans: ReceivedSpan[]) => boolean) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    if (done(spans)) return spans;
    if (Date.now() > deadline)
      throw new Error(`spans of ${traceId} so far: ${JSON.stringify(spans)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type LogLine = Record<string, unknown>;

/** The request log lines the server printed, once `wanted` finds what it waits for. */
async function requestLines(server: Served, wanted: (lines: LogLine[]) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.msg === 'request');
    if (wanted(lines) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const dialect of allDialects) {
  describe(`traces of a built app on ${dialect}`, function () {
    this.timeout(60_000);
    const db = useDatabase(dialect);
    let server: Served;

    before(async () => {
      const port = await freePort();
      server = await serve(process.execPath, start, {
        cwd: appDir,
        env: plainEnv({
          DATABASE_URL: db.url,
          PORT: String(port),
          LOG_LEVEL: 'info',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          // Exported within a tenth of a second rather than the default five.
          OTEL_BSP_SCHEDULE_DELAY: '100',
        }),
        port,
        probePath: '/openapi.json',
      });
    });

    after(async () => {
      await server?.stop();
    });

    it("continues the caller's trace: the request span by route template, a child span per query", async () => {
      const caller = callerContext();
      const created = await fetch(`${server.url}/v1/products`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
        body: JSON.stringify({ name: 'Lamp', price: 20 }),
      });
      expect(created.status, await created.clone().text()).to.equal(201);
      const spans = await spansOf(caller.traceId, (found) => found.some((span) => span.kind === 2));
      const request = spans.find((span) => span.kind === 2);
      expect(request).to.include({ name: 'POST /v1/products', parentSpanId: caller.spanId });
      expect(request?.attributes).to.include({
        'http.route': '/v1/products',
        'http.response.status_code': 201,
      });
      expect(request?.service).to.equal('shop');

      const queries = spans.filter((span) => span.scope === '@opentelemetry/instrumentation-knex');
      expect(queries.length).to.be.greaterThan(0);
      for (const query of queries) {
        expect(query.parentSpanId, query.name).to.equal(request?.spanId);
        expect(query.attributes['db.system.name'], query.name).to.equal(systems[dialect]);
      }
      const insert = queries.find((q) => q.attributes['db.collection.name'] === 'products');
      expect(insert?.attributes['db.operation.name']).to.equal('insert');
      // The statement with its placeholders, never the values bound to them.
      expect(String(insert?.attributes['db.query.text'])).to.not.include('Lamp');

      // The event the create recorded carries the trace on, for a consumer to continue it.
      const { id } = (await created.json()) as { id: string };
      const event = (await db.knex('slicekit_outbox').where({ entity_id: id }).first()) as
        { traceparent: string | null } | undefined;
      const [, traceId, parentId] = event?.traceparent?.split('-') ?? [];
      expect(traceId, event?.traceparent ?? 'no traceparent').to.equal(caller.traceId);
      expect(spans.map((span) => span.spanId)).to.include(parentId);

      const ofCaller = (line: LogLine) => line.trace_id === caller.traceId;
      const logged = (await requestLines(server, (lines) => lines.some(ofCaller))).find(ofCaller);
      expect(logged, server.output()).to.include({ span_id: request?.spanId, status: 201 });
    });

    it('names a request by its route template, not its path, and hides secret parameters', async () => {
      const caller = callerContext();
      const list = await fetch(`${server.url}/v1/products`);
      const [product] = ((await list.json()) as { items: { id: string }[] }).items;
      const res = await fetch(`${server.url}/v1/products/${product?.id}?access_token=s3cret`, {
        headers: { traceparent: caller.traceparent },
      });
      expect(res.status).to.equal(200);
      const [request] = await spansOf(caller.traceId, (found) =>
        found.some((span) => span.kind === 2),
      ).then((found) => found.filter((span) => span.kind === 2));
      expect(request?.name).to.equal('GET /v1/products/:id');
      // A secret query parameter is hidden from the span as from the request log.
      expect(request?.attributes['url.query']).to.equal('access_token=REDACTED');
    });
  });
}

describe('a built app with no OTEL_* variable', function () {
  this.timeout(60_000);
  const db = useDatabase('sqlite');
  const noOtel = ['--import', './no-otel.mjs', ...start];

  it('starts and serves without loading OpenTelemetry, its log lines without trace ids', async () => {
    const port = await freePort();
    // Every @opentelemetry/* package unresolvable: untraced, the app never asks for one.
    const server = await serve(process.execPath, noOtel, {
      cwd: appDir,
      env: plainEnv({ DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info' }),
      port,
      probePath: '/openapi.json',
    });
    try {
      const res = await fetch(`${server.url}/v1/products`, {
        headers: { traceparent: callerContext().traceparent },
      });
      expect(res.status).to.equal(200);
      const ofList = (line: LogLine) => line.url === '/v1/products';
      const requests = await requestLines(server, (lines) => lines.some(ofList));
      expect(requests.filter(ofList), server.output()).to.have.length(1);
      for (const line of requests) expect(line).to.not.have.property('trace_id');
    } finally {
      await server.stop();
    }
    // The same app asked to trace does load it, and says what is missing.
    const traced = spawnSync(process.execPath, noOtel, {
      cwd: appDir,
      env: plainEnv({ DATABASE_URL: db.url, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(traced.status).to.not.equal(0);
    expect(traced.stderr).to.include('@opentelemetry/sdk-node is not installed');
  });

  it('refuses an OTEL_* value the SDK would quietly replace, naming it', () => {
    const refused = spawnSync(process.execPath, start, {
      cwd: appDir,
      env: plainEnv({
        DATABASE_URL: db.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.include(
      'cannot start: invalid setting OTEL_EXPORTER_OTLP_PROTOCOL="grpc"',
    );
  });
});
