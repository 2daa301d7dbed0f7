// The app generator's answers: their checks, their normalised form and the data the templates see.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { databases, drivers, type Database } from './databases.js';

export { databases, type Database } from './databases.js';
import { fileSpecifier, packageRoot, runtimeFolder } from './paths.js';

/** What the `app` generator asks for; plop bypass arguments and the `slicekit new` flags set the same keys. */
export interface AppAnswers {
  /** npm package name of the app: lower-case letters, digits and dashes. */
  name: string;
  /** Folder to create; a relative path resolves against the current directory. @default the name */
  directory?: string;
  /** Database the app is set up for; `DATABASE_URL` can still point elsewhere. @default 'sqlite' */
  database?: Database;
  /** Run `npm install` in the new app. @default false */
  install?: boolean;
}

/**
 * Where generated apps take `slicekit` and `@slicekit/runtime` from: a checkout, the registry, or
 * the packed tarballs this slicekit was installed from (absolute paths of the two `.tgz` files).
 */
export type DependencySource =
  'checkout' | 'registry' | { tarballs: { slicekit: string; runtime: string } };

/**
 * The tarballs both packages were installed from, when npm's lock of the folder slicekit is
 * installed in says so (`npm install ./slicekit-0.1.0.tgz ./slicekit-runtime-0.1.0.tgz`, or npx
 * on them): an app then takes them through `file:` paths, since `^0.1.0` is on no registry.
 */
export function tarballsOf(root: string): { slicekit: string; runtime: string } | undefined {
  if (basename(dirname(root)) !== 'node_modules') return undefined;
  const installRoot = dirname(dirname(root));
  for (const lock of ['node_modules/.package-lock.json', 'package-lock.json']) {
    const file = join(installRoot, lock);
    if (!existsSync(file)) continue;
    const { packages = {} } = JSON.parse(readFileSync(file, 'utf8')) as {
      packages?: Record<string, { resolved?: string }>;
    };
    const tarball = (name: string) => {
      const resolved = packages[`node_modules/${name}`]?.resolved;
      if (!resolved?.startsWith('file:') || !resolved.endsWith('.tgz')) return undefined;
      const path = resolve(installRoot, resolved.slice('file:'.length));
      return existsSync(path) ? path : undefined;
    };
    const [slicekit, runtime] = [tarball('slicekit'), tarball('@slicekit/runtime')];
    if (slicekit && runtime) return { slicekit, runtime };
  }
  return undefined;
}

/**
 * `checkout` when `root` is a clone of the slicekit repository (its `runtime/` workspace holds
 * `@slicekit/runtime`): new apps get `file:` paths into it, so they run the code as it is there.
 * `registry` otherwise, which is every packed or published slicekit (its tarball has no
 * `runtime/`): new apps get `^<version>` ranges of both packages.
 */
export function dependencySourceOf(root: string): DependencySource {
  const runtimeManifest = join(root, 'runtime', 'package.json');
  if (!existsSync(runtimeManifest)) {
    const tarballs = tarballsOf(root);
    return tarballs ? { tarballs } : 'registry';
  }
  const { name } = JSON.parse(readFileSync(runtimeManifest, 'utf8')) as { name?: string };
  return name === '@slicekit/runtime' ? 'checkout' : 'registry';
}

/** The source for this copy of slicekit; `test/e2e/registry.test.ts` proves the registry form. */
export const dependencySource: DependencySource = dependencySourceOf(packageRoot);

const namePattern = /^[a-z][a-z0-9-]*$/;

/** `true`, or the message a prompt shows for a name npm or a database would refuse. */
export function checkAppName(name: unknown): true | string {
  if (typeof name !== 'string' || name.trim() === '') return 'give the app a name, e.g. shop-api';
  if (!namePattern.test(name) || name.length > 63) {
    return `"${name}" is not a usable app name: use lower-case letters, digits and dashes, starting with a letter (at most 63 characters)`;
  }
  return true;
}

/** `true`, or the message for a database the generator does not know. */
export function checkDatabase(database: unknown): true | string {
  return (databases as readonly unknown[]).includes(database)
    ? true
    : `"${String(database)}" is not a supported database: choose ${databases.join(', ')}`;
}

/** Raised for answers the generator cannot use; the message says which and how to fix it. */
export class AppAnswersError extends Error {
  override name = 'AppAnswersError';
  readonly code = 'app_answers_invalid';
}

interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as Manifest;

/** The version range slicekit itself is tested with, so the app gets the same packages. */
function versionOf(name: string): string {
  const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
  if (!version) throw new Error(`slicekit's package.json does not list ${name}`);
  return version;
}

/** Everything the app templates read. */
export interface AppTemplateData {
  name: string;
  /** Absolute path of the new app. */
  directory: string;
  database: Database;
  databaseLabel: string;
  isSqlite: boolean;
  isPostgres: boolean;
  isMysql: boolean;
  /** `DATABASE_URL` when the variable is not set. */
  defaultDatabaseUrl: string;
  /** The database's name on a PostgreSQL or MySQL server: the app's name with underscores. */
  databaseName: string;
  install: boolean;
  /** Where the app takes slicekit's packages from, for its README. */
  packagesFrom: { checkout?: true; tarballs?: true; registry?: true; version?: string };
  /** `dependencies` of the app's package.json, sorted, as `"name": "range"` pairs. */
  dependencies: { name: string; version: string }[];
  devDependencies: { name: string; version: string }[];
  /** The app's `allowScripts`: every dependency with an install script, and whether it may run. */
  allowScripts: { name: string; allow: boolean }[];
}

/**
 * The install scripts in an app's dependency tree, and which of them it needs. npm 11 reads
 * `allowScripts`; the `scarfSettings` the template writes keeps older npm quiet too.
 */
function allowScripts(database: Database, slicekit: string): Record<string, boolean> {
  return {
    // swagger-ui-dist (the runtime's /docs page) pulls in @scarf/scarf, whose postinstall reports
    // the install to a telemetry service; nothing needs it.
    '@scarf/scarf': false,
    // tsx runs esbuild's platform binary from its optional dependency; the postinstall only
    // checks that binary, so the app does without it.
    esbuild: false,
    // The OTLP protobuf exporter's protobufjs runs a postinstall that checks its own CLI's
    // dependencies; the exporter needs none of it.
    protobufjs: false,
    // A driver that fetches or compiles its native binding on install: needed.
    ...(drivers[database].installScript ? { [drivers[database].package]: true } : {}),
    // From a clone, slicekit's prepare would rebuild the clone, which its own install built. npm
    // names a local dependency by its path, not its package name. (From the registry, npm runs no
    // prepare.)
    ...(slicekit.startsWith('file:') ? { [slicekit]: false } : {}),
  };
}

function databaseNameOf(name: string): string {
  return name.replaceAll('-', '_');
}

function defaultDatabaseUrl(name: string, database: Database): string {
  return drivers[database].defaultUrl
    .replace('{name}', name)
    .replace('{database}', databaseNameOf(name));
}

function sorted(entries: Record<string, string>): { name: string; version: string }[] {
  return Object.keys(entries)
    .sort()
    .map((name) => ({ name, version: entries[name] ?? '' }));
}

/**
 * Checks the answers and derives the template data; `cwd` anchors a relative directory, `source`
 * says where the app takes slicekit's packages from.
 *
 * @example
 * appTemplateData({ name: 'shop', database: 'postgres' }, process.cwd());
 */
export function appTemplateData(
  answers: AppAnswers,
  cwd: string,
  source: DependencySource = dependencySource,
): AppTemplateData {
  const name = String(answers.name ?? '').trim();
  const database = answers.database ?? 'sqlite';
  const problems = [checkAppName(name), checkDatabase(database)].filter((p) => p !== true);
  if (problems.length > 0) throw new AppAnswersError(problems.join('; '));
  const directory = resolve(cwd, answers.directory?.trim() || name);
  const driver = drivers[database];
  const fromCheckout = source === 'checkout';
  const tarballs = typeof source === 'object' ? source.tarballs : undefined;
  const runtime = fromCheckout
    ? fileSpecifier(directory, runtimeFolder)
    : tarballs
      ? fileSpecifier(directory, tarballs.runtime)
      : `^${manifest.version}`;
  const slicekit = fromCheckout
    ? fileSpecifier(directory, packageRoot)
    : tarballs
      ? fileSpecifier(directory, tarballs.slicekit)
      : `^${manifest.version}`;
  const dependencies: Record<string, string> = {
    '@slicekit/runtime': runtime,
    cors: versionOf('cors'),
    // The event relay's clients (EVENTS_BROKER_URL), loaded only when a broker is set, and the
    // tracing API the outbox reads an event's traceparent through.
    '@nats-io/jetstream': versionOf('@nats-io/jetstream'),
    '@nats-io/transport-node': versionOf('@nats-io/transport-node'),
    '@opentelemetry/api': versionOf('@opentelemetry/api'),
    amqplib: versionOf('amqplib'),
    express: versionOf('express'),
    knex: versionOf('knex'),
    pino: versionOf('pino'),
    'prom-client': versionOf('prom-client'),
    // The idempotency store's client when IDEMPOTENCY_STORE_URL names a Redis (loaded only then).
    redis: versionOf('redis'),
    [driver.package]: versionOf(driver.package),
    // Tracing (src/instrument.ts): loaded only when the OTEL_* variables turn it on.
    ...Object.fromEntries(
      [
        '@opentelemetry/api',
        '@opentelemetry/exporter-trace-otlp-http',
        '@opentelemetry/exporter-trace-otlp-proto',
        '@opentelemetry/instrumentation-express',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-knex',
        '@opentelemetry/instrumentation-pino',
        '@opentelemetry/sdk-node',
      ].map((name) => [name, versionOf(name)]),
    ),
  };
  const devDependencies: Record<string, string> = {
    slicekit,
    ...Object.fromEntries(
      [
        '@eslint/js',
        '@types/chai',
        '@types/cors',
        '@types/express',
        '@types/mocha',
        '@types/node',
        '@types/react',
        '@types/react-dom',
        '@types/supertest',
        'chai',
        // The admin UI (admin/): React-Admin, bundled by esbuild into dist/admin at build time,
        // so none of it is a production dependency.
        'esbuild',
        'eslint',
        'jose',
        'json-schema-to-ts',
        'mocha',
        // The typed client of client/: its fetch wrapper, and what `npm run client` writes it with.
        'openapi-fetch',
        'openapi-typescript',
        'plop',
        'prettier',
        'react',
        'react-admin',
        'react-dom',
        'supertest',
        'tsx',
        'typescript',
        'typescript-eslint',
      ].map((name) => [name, versionOf(name)]),
    ),
  };
  return {
    name,
    directory,
    database,
    databaseLabel: driver.label,
    // isSqlite, isPostgres, isMysql: which database the templates write for.
    ...(Object.fromEntries(
      databases.map((each) => [`is${each[0]!.toUpperCase()}${each.slice(1)}`, each === database]),
    ) as Pick<AppTemplateData, 'isSqlite' | 'isPostgres' | 'isMysql'>),
    defaultDatabaseUrl: defaultDatabaseUrl(name, database),
    databaseName: databaseNameOf(name),
    install: answers.install === true,
    packagesFrom: fromCheckout
      ? { checkout: true }
      : tarballs
        ? { tarballs: true }
        : { registry: true, version: manifest.version },
    dependencies: sorted(dependencies),
    devDependencies: sorted(devDependencies),
    allowScripts: Object.entries(allowScripts(database, slicekit))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, allow]) => ({ name, allow })),
  };
}
