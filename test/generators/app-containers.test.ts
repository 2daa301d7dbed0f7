// A generated app's container files, read as Docker would where no Docker runs: compose.yaml names
// services that exist, waits for migrations and health, and gives the app settings src/config.ts
// reads, and the app migrates and serves with them; .env.example lists exactly the settings
// src/config.ts reads, with its defaults. (The image's commands run in test/e2e/registry.test.ts.)
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodePlop from 'node-plop';
import { freePort, run, serve } from '../e2e/support/processes.js';
import { uniqueName, useDatabase } from '../support/services.js';
import {
  configSettings,
  configValues,
  deleteStream,
  dependenciesOf,
  exampleDefaults,
  exampleSettings,
  loadBalancerUpstreams,
  localSettings,
  readCompose,
  type ComposeFile,
} from '../e2e/support/containers.js';
import { execForm, parseDockerfile } from '../e2e/support/dockerfile.js';
import { appEnv, repoRoot, scratchFolder } from '../e2e/support/workspace.js';

/** OpenTelemetry's SDK reads its own variables; the app's config does not. */
const isSdkSetting = (name: string) => name.startsWith('OTEL_');

const databaseServices = { sqlite: undefined, postgres: 'postgres', mysql: 'mariadb' } as const;
const schemes = { sqlite: undefined, postgres: 'postgres:', mysql: 'mysql:' } as const;

describe('a generated app in containers (compose.yaml, Dockerfile, .env.example)', function () {
  this.timeout(120_000);
  let scratch: ReturnType<typeof scratchFolder>;
  before(() => {
    scratch = scratchFolder('app-containers');
  });
  after(() => scratch?.remove());

  for (const database of ['sqlite', 'postgres', 'mysql'] as const) {
    describe(`for ${database}`, () => {
      const db = database === 'sqlite' ? undefined : useDatabase(database);
      let app: string;
      let compose: ComposeFile;
      let read: string[];

      before(async () => {
        app = join(scratch.path, database, 'shop');
        const plop = await nodePlop(join(repoRoot, 'plopfile.ts'), {
          destBasePath: repoRoot,
          force: false,
        });
        const answers = { name: 'shop', directory: app, database, install: false };
        const { failures } = await plop.getGenerator('app').runActions(answers);
        expect(failures).to.deep.equal([]);
        compose = readCompose(app);
        read = configSettings(app, appEnv());
      });

      it('lists in .env.example every setting src/config.ts reads, and no other', () => {
        const listed = exampleSettings(app).filter((name) => !isSdkSetting(name));
        expect(new Set(listed).size, 'a setting is listed twice').to.equal(listed.length);
        const unlisted = read.filter((name) => !listed.includes(name));
        expect(unlisted, 'read by src/config.ts, missing from .env.example').to.deep.equal([]);
        const unread = listed.filter((name) => !read.includes(name)).sort();
        expect(unread, 'listed in .env.example, not read by src/config.ts').to.deep.equal([]);
      });

      it('gives in .env.example the defaults src/config.ts takes, each under its comment', () => {
        const defaults = exampleDefaults(app);
        const lines = readFileSync(join(app, '.env.example'), 'utf8').split('\n');
        lines.forEach((line, index) => {
          if (/^(#\s*)?[A-Z][A-Z0-9_]*=/.test(line)) {
            expect(lines[index - 1], `the line above ${line}`).to.match(/^# /);
          }
        });
        // The app loads the same settings with the file's values as with none of them set.
        const unset = appEnv();
        for (const name of [...read, ...Object.keys(defaults)]) delete unset[name];
        expect(configValues(app, { ...unset, ...defaults })).to.equal(configValues(app, unset));
      });

      it('names in compose.yaml only services it defines, and files the app has', () => {
        for (const [name, service] of Object.entries(compose.services)) {
          for (const [dependency] of dependenciesOf(compose, name)) {
            expect(compose.services, `${name} depends on ${dependency}`).to.have.property(
              dependency,
            );
          }
          expect(service.image ?? service.build, `${name} has an image`).to.not.equal(undefined);
          for (const volume of service.volumes ?? []) {
            const [source] = volume.split(':');
            if (source!.startsWith('./'))
              expect(existsSync(join(app, source!)), volume).to.equal(true);
            else expect(compose.volumes, volume).to.have.property(source!);
          }
        }
        for (const { host, port } of loadBalancerUpstreams(app)) {
          expect(host, 'the load balancer sends to the app service').to.equal('app');
          expect(port, "the load balancer sends to the image's PORT").to.equal(3000);
        }
        expect(loadBalancerUpstreams(app)).to.have.length.greaterThan(0);
      });

      it("runs the app's replicas after the one-shot migration, which runs once", () => {
        const { app: service, migrate } = compose.services;
        expect(service?.deploy?.replicas).to.equal(database === 'sqlite' ? 1 : 3);
        expect(service?.environment?.MIGRATE_ON_START).to.equal('false');
        expect(dependenciesOf(compose, 'app')).to.deep.include([
          'migrate',
          'service_completed_successfully',
        ]);
        expect(migrate?.command).to.deep.equal(['node', 'dist/src/migrate.js']);
        expect(migrate?.deploy?.replicas ?? 1).to.equal(1);
        // What the app waits for is healthy first, by the service's own check.
        for (const [name, condition] of dependenciesOf(compose, 'app')) {
          if (condition === 'service_healthy') {
            expect(compose.services[name]?.healthcheck, name).to.not.equal(undefined);
          }
        }
      });

      it('gives the app its database, Redis and NATS JetStream, by settings config.ts knows', () => {
        const environment = compose.services.app?.environment ?? {};
        for (const name of Object.keys(environment)) {
          expect(read, `compose sets ${name}`).to.include(name);
        }
        const server = databaseServices[database];
        if (server) {
          const url = new URL(environment.DATABASE_URL!);
          expect(url.protocol).to.equal(schemes[database]);
          expect(url.hostname).to.equal(server);
          expect(dependenciesOf(compose, 'migrate')).to.deep.include([server, 'service_healthy']);
          expect(new URL(environment.IDEMPOTENCY_STORE_URL!).hostname).to.equal('redis');
        } else {
          // One SQLite process: the file on a volume the migration shares, keys in memory.
          expect(environment.DATABASE_URL).to.equal('data/shop.sqlite');
          expect(compose.services.app?.volumes).to.deep.equal(compose.services.migrate?.volumes);
          expect(environment).not.to.have.property('IDEMPOTENCY_STORE_URL');
        }
        expect(environment.EVENTS_BROKER_URL).to.equal('nats://nats:4222');
        expect(compose.services.nats?.command).to.include('-js');
      });

      it("migrates and serves with compose.yaml's settings, their hosts on this machine", async () => {
        // The sources stand for the build here (test/e2e/registry.test.ts runs the compiled one);
        // events go to a stream of this run's own, deleted after.
        const stream = uniqueName('EVENTS').toUpperCase();
        const port = await freePort();
        const metricsPort = await freePort();
        const env = (service: string) =>
          appEnv({
            ...localSettings(compose, service, db ? { DATABASE_URL: db.url } : {}),
            PORT: String(port),
            METRICS_PORT: String(metricsPort),
            EVENTS_STREAM: stream,
            EVENTS_SUBJECT_PREFIX: stream.toLowerCase(),
          });
        const tsx = ['--import', 'tsx'];
        await run(process.execPath, [...tsx, 'src/migrate.ts'], { cwd: app, env: env('migrate') });
        const server = await serve(process.execPath, [...tsx, 'src/server.ts'], {
          cwd: app,
          env: env('app'),
          port,
          probePath: '/openapi.json',
        });
        try {
          expect((await fetch(`${server.url}/openapi.json`)).status).to.equal(200);
          const ready = await fetch(`${server.url}/health/ready`);
          expect(ready.status, await ready.text()).to.equal(200);
        } finally {
          await server.stop();
          await deleteStream(env('app').EVENTS_BROKER_URL!, stream);
        }
      });

      it('starts the image with the documented command, as a user without privileges', () => {
        const instructions = parseDockerfile(readFileSync(join(app, 'Dockerfile'), 'utf8'));
        const last = (keyword: string) =>
          instructions.filter((instruction) => instruction.keyword === keyword).at(-1)?.args;
        expect(execForm(last('CMD')!)).to.deep.equal([
          'node',
          '--import',
          './dist/src/instrument.js',
          'dist/src/server.js',
        ]);
        expect(last('USER')).to.equal('node');
        expect(last('HEALTHCHECK')).to.contain('/health/live');
      });
    });
  }
});
