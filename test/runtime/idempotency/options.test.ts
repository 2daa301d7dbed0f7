// Options: defaults, durations, and validation when the app starts (never at registration),
// with one OptionsValidationError listing every broken rule.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  addIdempotentKey,
  defaultIdempotencyOptions,
  OptionsValidationError,
  prepareApp,
  requiredIdempotentKey,
  silentLogger,
  type ConfigureIdempotency,
} from '@slicekit/runtime/idempotency';

async function failuresOf(configure: ConfigureIdempotency): Promise<readonly string[]> {
  const app = express();
  addIdempotentKey(app, (o) => {
    o.logger = silentLogger;
    configure(o);
  });
  app.post('/x', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
  try {
    await prepareApp(app);
  } catch (error) {
    expect(error).to.be.instanceOf(OptionsValidationError);
    expect((error as OptionsValidationError).code).to.equal('idempotency_options_invalid');
    return (error as OptionsValidationError).failures;
  }
  return [];
}

describe('idempotency options', () => {
  it('has the documented defaults', () => {
    const options = defaultIdempotencyOptions();
    expect(options).to.include({
      idempotencyHeaderKey: 'X-Idempotency-Key',
      idempotencyKeyPattern: '^[a-zA-Z0-9\\-_]+$',
      maxIdempotencyKeyLength: 255,
      conflictHandling: 'ConflictResponse',
      expiration: '4h',
      inFlightReservationTimeout: '30s',
      minStatusCodeForCaching: 200,
      maxStatusCodeForCaching: 299,
      cachePrefix: 'idem',
      keyScopeResolver: null,
      scopeHmacSecret: null,
      includeClientIpInScope: false,
    });
    expect([...options.additionalCacheableStatusCodes]).to.deep.equal([]);
    expect(options.jsonSerializerOptions).to.deep.equal({});
  });

  it('resolves durations given as strings or milliseconds', async () => {
    const app = express();
    addIdempotentKey(app, (o) => {
      o.logger = silentLogger;
      o.expiration = '1.5h';
      o.inFlightReservationTimeout = 2500;
    });
    const prepared = await prepareApp(app);
    expect(prepared?.options.expirationMs).to.equal(5_400_000);
    expect(prepared?.options.inFlightReservationTimeoutMs).to.equal(2500);
  });

  it("resolves the default durations '4h' and '30s'", async () => {
    const app = express();
    addIdempotentKey(app, (o) => (o.logger = silentLogger));
    const prepared = await prepareApp(app);
    expect(prepared?.options.expirationMs).to.equal(4 * 3_600_000);
    expect(prepared?.options.inFlightReservationTimeoutMs).to.equal(30_000);
  });

  it('accepts the defaults', async () => {
    expect(await failuresOf(() => {})).to.deep.equal([]);
  });

  const rules: [string, ConfigureIdempotency, RegExp][] = [
    ['a blank header key', (o) => (o.idempotencyHeaderKey = ' '), /idempotencyHeaderKey/],
    ['a blank cache prefix', (o) => (o.cachePrefix = ''), /cachePrefix/],
    ['a blank scopeHmacSecret', (o) => (o.scopeHmacSecret = '  '), /scopeHmacSecret/],
    ['a zero expiration', (o) => (o.expiration = 0), /expiration/],
    ['an unreadable expiration', (o) => (o.expiration = 'soon'), /expiration/],
    [
      'a negative in-flight timeout',
      (o) => (o.inFlightReservationTimeout = '-1s'),
      /inFlightReservationTimeout/,
    ],
    [
      'missing serializer settings',
      (o) => (o.jsonSerializerOptions = null),
      /jsonSerializerOptions/,
    ],
    ['a max key length below 1', (o) => (o.maxIdempotencyKeyLength = 0), /maxIdempotencyKeyLength/],
    [
      'a blank key pattern',
      (o) => (o.idempotencyKeyPattern = ''),
      /idempotencyKeyPattern must not be blank/,
    ],
    [
      'a key pattern that does not compile',
      (o) => (o.idempotencyKeyPattern = '(['),
      /idempotencyKeyPattern does not compile/,
    ],
    [
      'a key pattern with a backreference, which RE2 cannot run',
      (o) => (o.idempotencyKeyPattern = '^(a)\\1$'),
      /idempotencyKeyPattern does not compile: .*\\1.*no backreferences or lookaround/,
    ],
    ['a min status below 100', (o) => (o.minStatusCodeForCaching = 99), /minStatusCodeForCaching/],
    ['a max status above 599', (o) => (o.maxStatusCodeForCaching = 600), /maxStatusCodeForCaching/],
    [
      'a min status above the max',
      (o) => {
        o.minStatusCodeForCaching = 300;
        o.maxStatusCodeForCaching = 200;
      },
      /must not exceed/,
    ],
  ];
  for (const [what, configure, message] of rules) {
    it(`refuses ${what} at start`, async () => {
      const failures = await failuresOf(configure);
      expect(failures).to.have.length(1);
      expect(failures[0]).to.match(message);
    });
  }

  it('lists every broken rule in one error', async () => {
    const failures = await failuresOf((o) => {
      o.idempotencyHeaderKey = '';
      o.cachePrefix = '';
      o.expiration = -1;
      o.maxStatusCodeForCaching = 700;
    });
    expect(failures).to.have.length(4);
  });

  it('validates when the app starts, not at registration, and never serves with bad options', async () => {
    const app = express();
    let configured = false;
    addIdempotentKey(app, (o) => {
      configured = true;
      o.logger = silentLogger;
      o.cachePrefix = '';
    });
    app.post('/x', requiredIdempotentKey(), (_req, res) => void res.sendStatus(201));
    expect(configured).to.equal(false);
    const error = await prepareApp(app).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(OptionsValidationError);
    app.set('env', 'test');
    await request(app).post('/x').set('X-Idempotency-Key', 'k').expect(500);
  });
});
