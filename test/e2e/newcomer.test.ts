// The newcomer's path, end to end, on SQLite, PostgreSQL and MySQL: a new app, an entity from plop
// bypass arguments, the Product entity from a spec file and the secure shop example (four related
// entities per tenant, with roles, soft delete and PATCH, from a folder in one run), migrate, seed,
// the app's own tests, tsc, lint, then the server answering the spec's Product scenarios, the
// shop's (as an admin) and the secure shop's over HTTP. The plain shop runs as DEMO=shop on the
// three databases in docs-examples.test.ts.
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { mintToken } from '../../scripts/demo-token.js';
import { productSpec, shopSecureSpecs } from '../../scripts/generate.js';
import { sampleValue, scrape } from '../support/prometheus-text.js';
import { allDialects, useDatabase } from '../support/services.js';
import { freePort, run, serve, type Served } from './support/processes.js';
import { describeProductScenarios } from './support/product-scenarios.js';
import { describeSecureShopScenarios } from './support/secure-shop-scenarios.js';
import { describeShopScenarios } from './support/shop-scenarios.js';
import {
  appEnv,
  ensureRuntimeBuilt,
  plainEnv,
  repoRoot,
  scratchFolder,
} from './support/workspace.js';

const node = process.execPath;
const currencySpec = fileURLToPath(new URL('./support/currency.yaml', import.meta.url));
const ticketSpec = fileURLToPath(new URL('./support/ticket.yaml', import.meta.url));
const bookSpec = fileURLToPath(new URL('./support/book.yaml', import.meta.url));

// Every route the three entities of this path get, as OpenAPI lists them.
const generatedRoutes = [
  'get /v1/currencies',
  'post /v1/currencies',
  'get /v1/currencies/{id}',
  'put /v1/currencies/{id}',
  'delete /v1/currencies/{id}',
  'patch /v1/currencies/{id}/retire',
  'get /v1/contacts',
  'post /v1/contacts',
  'get /v1/contacts/{id}',
  'put /v1/contacts/{id}',
  'delete /v1/contacts/{id}',
  'get /v1/customers',
  'post /v1/customers',
  'get /v1/customers/{id}',
  'put /v1/customers/{id}',
  'patch /v1/customers/{id}',
  'delete /v1/customers/{id}',
  'post /v1/customers/{id}/restore',
  'get /v1/customers/{id}/orders',
  'get /v1/orders',
  'post /v1/orders',
  'get /v1/orders/{id}',
  'put /v1/orders/{id}',
  'patch /v1/orders/{id}',
  'delete /v1/orders/{id}',
  'post /v1/orders/{id}/restore',
  'post /v1/orders/{id}/place',
  'get /v1/orders/{id}/lines',
  'get /v1/order-lines',
  'post /v1/order-lines',
  'get /v1/order-lines/{id}',
  'delete /v1/order-lines/{id}',
  'post /v1/order-lines/{id}/restore',
  'get /v1/tags',
  'post /v1/tags',
  'get /v1/tags/{id}',
  'delete /v1/tags/{id}',
  'get /v1/products',
  'post /v1/products',
  'get /v1/products/{id}',
  'put /v1/products/{id}',
  'delete /v1/products/{id}',
  'post /v1/products/{id}/approval',
  'put /v1/products/{id}/discontinue',
  'get /v1/tickets',
  'post /v1/tickets',
  'get /v1/tickets/{id}',
  'put /v1/tickets/{id}',
  'delete /v1/tickets/{id}',
  'get /v1/books',
  'post /v1/books',
  'get /v1/books/{id}',
  'put /v1/books/{id}',
  'delete /v1/books/{id}',
];

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
// The secure shop's tenant entities need token verification: the server gets this secret, and the
// scenarios sign their callers' tokens with it.
const secret = randomBytes(32).toString('base64url');
const shopAdmin = () => ({
  authorization: `Bearer ${mintToken(secret, { user: 'ada', roles: ['admin'], tenant: 'ACME' }, {})}`,
});
const bin = (path: string) => join(repoRoot, 'node_modules', path);

// One app for the three databases: `slicekit new` writes the same TypeScript whichever database it
// is given but for defaults (the database URL in src/config.ts, names), and the entity generator
// never reads the database, so the app is made, type-checked and linted once, then migrated, tested
// and served on each database through DATABASE_URL, as a user switching databases would. `new`
// with --database postgres and mysql runs in the upgrade suites, whose apps serve on those.
describe("newcomer's path", function () {
  this.timeout(120_000);
  let scratch: ReturnType<typeof scratchFolder>;
  let app: string;
  before(() => {
    scratch = scratchFolder('newcomer');
    app = join(scratch.path, 'shop');
  });
  after(() => scratch?.remove());

  describe('making the app', () => {
    it('creates the app with `slicekit new`', async () => {
      await run(
        node,
        [join(repoRoot, 'bin/slicekit.js'), 'new', app, '--database', 'sqlite', '-y'],
        {
          cwd: scratch.path,
          env: plainEnv(),
        },
      );
      expect(existsSync(join(app, 'src/app.ts'))).to.equal(true);
    });

    it('adds an entity from plop bypass arguments', async () => {
      await run(node, [bin('plop/bin/plop.js'), 'entity', '--', ...contactBypass], {
        cwd: app,
        env: plainEnv(),
      });
      expect(readdirSync(join(app, 'src/slices'))).to.include('contacts');
    });

    it('adds the secure shop example: every spec of its folder in one run, in dependency order', async () => {
      await run(node, [bin('plop/bin/plop.js'), 'entity', '--', '--spec', shopSecureSpecs], {
        cwd: app,
        env: plainEnv(),
      });
      const migrations = readdirSync(join(app, 'migrations')).filter((f) => /_create_/.test(f));
      expect(migrations.map((f) => f.replace(/^\d+_create_/, ''))).to.deep.equal([
        'contacts.ts',
        'customers.ts',
        'tags.ts',
        'orders.ts',
        'order_lines.ts',
      ]);
      expect(readdirSync(join(app, 'src/slices/orders'))).to.include('order.relations.ts');
    });

    it('adds the Product entity from the spec file', async () => {
      await run(node, [bin('plop/bin/plop.js'), 'entity', '--', '--spec', productSpec], {
        cwd: app,
        env: plainEnv(),
      });
      expect(readdirSync(join(app, 'src/slices'))).to.include('products');
    });

    it('adds entities with reference data, sequences and idempotent writes from spec files', async () => {
      for (const spec of [currencySpec, ticketSpec, bookSpec]) {
        await run(node, [bin('plop/bin/plop.js'), 'entity', '--', '--spec', spec], {
          cwd: app,
          env: plainEnv(),
        });
      }
      expect(readdirSync(join(app, 'src/slices/tickets'))).to.include('ticket.sequences.ts');
      expect(readdirSync(join(app, 'src/slices/currencies'))).to.include(
        'currency.reference-data.ts',
      );
    });

    it('type-checks with tsc --noEmit', async () => {
      await run(
        node,
        [bin('typescript/bin/tsc'), '--noEmit', '--customConditions', 'slicekit-source'],
        {
          cwd: app,
          env: plainEnv(),
        },
      );
    });

    it('is clean for the ESLint and Prettier configs it ships', async () => {
      await run(node, [bin('eslint/bin/eslint.js'), '.'], { cwd: app, env: plainEnv() });
      await run(node, [bin('prettier/bin/prettier.cjs'), '--check', '.'], {
        cwd: app,
        env: plainEnv(),
      });
    });
  });

  for (const dialect of allDialects) {
    describe(`on ${dialect}`, function () {
      const db = useDatabase(dialect);
      let server: Served | undefined;
      const env = () => appEnv({ DATABASE_URL: db.url });
      /** The app's server from its TypeScript sources, on a free port. */
      const startServer = async (): Promise<Served> => {
        // A free port can be taken by another process before the server binds it: try another.
        for (let attempt = 1; ; attempt++) {
          const port = await freePort();
          try {
            return await serve(node, ['--import', 'tsx', 'src/server.ts'], {
              cwd: app,
              env: { ...env(), PORT: String(port), METRICS_PORT: '0', AUTH_JWT_SECRET: secret },
              port,
              probePath: '/v1/products',
            });
          } catch (error) {
            if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
          }
        }
      };

      after(async () => {
        await server?.stop();
      });

      it('migrates and seeds the database', async () => {
        await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
        await run('npm', ['run', 'seed'], { cwd: app, env: env() });
        const [{ count }] = (await db.knex('products').count({ count: '*' })) as [
          { count: unknown },
        ];
        expect(Number(count)).to.be.greaterThan(0);
        // The seed keeps the ISBN's pattern and uniqueness, its first rows the spec's examples.
        const isbns = (await db.knex('books').orderBy('isbn').pluck('isbn')) as string[];
        expect(isbns).to.have.length(5);
        expect(new Set(isbns).size).to.equal(5);
        for (const isbn of isbns) expect(isbn).to.match(/^[0-9]{13}$/);
        expect(isbns).to.include.members(['9780140449136', '9780261103573']);
        const shelves = (await db.knex('books').pluck('shelf')) as string[];
        for (const shelf of shelves) expect(shelf).to.match(/^[A-Z]{2}-[0-9]{3}$/);
      });

      it('applies reference data with the migrations, and adds none when migrating again', async () => {
        const codes = async () =>
          (await db.knex('currencies').orderBy('code').pluck('code')) as string[];
        expect(await codes()).to.deep.equal(['EUR', 'JPY', 'USD']);
        await db.knex('currencies').where({ code: 'EUR' }).update({ name: 'Euro (edited)' });
        await run('npm', ['run', 'migrate'], { cwd: app, env: env() });
        expect(await codes()).to.deep.equal(['EUR', 'JPY', 'USD']);
        const euro = await db.knex('currencies').where({ code: 'EUR' }).first();
        expect(euro.name).to.equal('Euro (edited)');
      });

      it("passes the app's own generated tests", async () => {
        const output = await run('npm', ['test'], { cwd: app, env: env() });
        expect(output).to.match(/\d+ passing/);
        expect(output).not.to.match(/\d+ failing/);
      });

      it('serves: the server migrates, listens on PORT and answers 404 problem+json', async () => {
        server = await startServer();
        const res = await fetch(`${server.url}/v1/nothing-here`);
        expect(res.status).to.equal(404);
        expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      });

      it('serves /openapi.json, valid OpenAPI 3.1 listing every generated route, and /docs', async () => {
        const document = (await (await fetch(`${server!.url}/openapi.json`)).json()) as {
          paths: Record<string, Record<string, { parameters?: { $ref?: string }[] }>>;
        };
        const result = await new Validator().validate(structuredClone(document));
        expect(result.errors ?? []).to.deep.equal([]);
        const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
          Object.keys(methods)
            .filter((key) => key !== 'parameters')
            .map((method) => `${method} ${path}`),
        );
        expect(routes.sort()).to.deep.equal([...generatedRoutes].sort());
        const guarded = (method: string, path: string) =>
          (document.paths[path]?.[method]?.parameters ?? []).some((p) =>
            p.$ref?.endsWith('IdempotencyKey'),
          );
        expect(guarded('post', '/v1/currencies')).to.equal(true);
        expect(guarded('post', '/v1/products')).to.equal(false);
        const docs = await fetch(`${server!.url}/docs`);
        expect(docs.status).to.equal(200);
        expect(await docs.text()).to.contain('swagger-ui');
      });

      it('delivers events after commit, and on the next start those a crash left pending', async () => {
        const created = await fetch(`${server!.url}/v1/products`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Event lamp', price: 12.5 }),
        });
        expect(created.status).to.equal(201);
        const { id } = (await created.json()) as { id: string };
        const event = () =>
          db.knex('slicekit_outbox').where({ name: 'ProductCreated', entity_id: id }).first();
        const settled = async () => {
          for (let i = 0; i < 100 && (await event())?.status !== 'dispatched'; i++)
            await sleep(100);
          return event();
        };
        expect(await settled()).to.include({ status: 'dispatched', entity: 'Product' });
        // A crash between commit and dispatch leaves the row pending: the next start delivers it.
        await server!.stop();
        await db.knex('slicekit_outbox').where({ name: 'ProductCreated', entity_id: id }).update({
          status: 'pending',
          claim_token: null,
          available_at: 0,
          dispatched_at: null,
          handled_at: null,
        });
        server = await startServer();
        expect(await settled()).to.include({ status: 'dispatched' });
        expect(Number((await event())?.attempts)).to.equal(2);
      });

      it('serves at once on a restart with a slow event backlog, and a stop mid-backlog leaves the rest for the next start', async () => {
        const outbox = () => db.knex('slicekit_outbox').where('entity_id', 'like', 'backlog-%');
        const rows = async () =>
          (await outbox().select('status', 'attempts', 'claim_token')) as {
            status: string;
            attempts: number | string;
            claim_token: string | null;
          }[];
        const dispatched = async () => (await rows()).filter((r) => r.status === 'dispatched');
        await server!.stop();
        // A subscriber as slow as a call to another service, and 20 events a crash left pending.
        const eventsFile = join(app, 'src/events.ts');
        const original = readFileSync(eventsFile, 'utf8');
        const slow = original.replace(
          /export function subscribe\(_bus: AppEventBus, _logger: Logger\): void \{\n/,
          "$&  _bus.on('ProductCreated', () => new Promise<void>((done) => setTimeout(done, 300)));\n",
        );
        expect(slow).not.to.equal(original);
        writeFileSync(eventsFile, slow);
        try {
          await db.knex('slicekit_outbox').insert(
            Array.from({ length: 20 }, (_, n) => ({
              name: 'ProductCreated',
              entity: 'Product',
              entity_id: `backlog-${n}`,
              payload: JSON.stringify({ id: `backlog-${n}`, name: 'Backlog lamp', price: 1 }),
              status: 'pending',
              attempts: 0,
              occurred_at: Date.now(),
              available_at: 0,
            })),
          );
          server = await startServer();
          expect((await fetch(`${server.url}/v1/products`)).status).to.equal(200);
          expect(await dispatched()).to.have.length.below(20);
          // SIGTERM mid-backlog: the delivery in flight ends, the rest is released, not leased.
          await server.stop();
          const left = (await rows()).filter((r) => r.status === 'pending');
          expect(left).to.have.length.above(0);
          expect(left.every((r) => r.claim_token === null && Number(r.attempts) === 0)).to.equal(
            true,
          );
        } finally {
          writeFileSync(eventsFile, original);
        }
        server = await startServer();
        for (let i = 0; i < 100 && (await dispatched()).length < 20; i++) await sleep(100);
        const all = await rows();
        expect(all.filter((r) => r.status === 'dispatched')).to.have.length(20);
        // Each delivered once: a clean stop never hands an event to a subscriber twice.
        expect(all.every((r) => Number(r.attempts) === 1)).to.equal(true);
      });

      if (dialect === 'sqlite') {
        it('builds with npm run build, and npm start serves the compiled app and its metrics', async () => {
          ensureRuntimeBuilt();
          await run('npm', ['run', 'build'], { cwd: app, env: env() });
          const port = await freePort();
          const metricsPort = await freePort();
          const compiled = await serve('npm', ['start'], {
            cwd: app,
            // The same database the tsx server migrated: the compiled migrations are already applied.
            env: {
              ...plainEnv(),
              DATABASE_URL: db.url,
              AUTH_JWT_SECRET: secret,
              PORT: String(port),
              METRICS_PORT: String(metricsPort),
              LOG_LEVEL: 'warn',
            },
            port,
            probePath: '/v1/products',
          });
          try {
            // The strict reader the runtime's metrics tests use: every line well formed.
            const listed = async () =>
              sampleValue(await scrape(metricsPort), 'http_server_request_duration_seconds_count', {
                http_route: '/v1/products',
                http_request_method: 'GET',
                http_response_status_code: '200',
              });
            const before = await listed();
            for (let i = 0; i < 3; i++) {
              const res = await fetch(`${compiled.url}/v1/products`);
              expect(res.status).to.equal(200);
            }
            expect((await listed()) - before).to.equal(3);
            const outbox = sampleValue(await scrape(metricsPort), 'slicekit_outbox_pending_events');
            expect(Number.isNaN(outbox)).to.equal(false);
          } finally {
            await compiled.stop();
          }
        });
      }

      describeProductScenarios(() => {
        if (!server) throw new Error('the server did not start');
        return server.url;
      });
      describeShopScenarios(
        () => {
          if (!server) throw new Error('the server did not start');
          return server.url;
        },
        { headers: shopAdmin, softDelete: true },
      );
      describeSecureShopScenarios(
        () => {
          if (!server) throw new Error('the server did not start');
          return server.url;
        },
        () => secret,
      );
    });
  }
});

// A second entity described entirely by bypass arguments, as a script would add one.
const contactBypass = [
  ...['--name', 'Contact', '--fields', 'email:string(200)!, displayName:string'],
  ...['--updates', 'Rename(displayName)'],
];
