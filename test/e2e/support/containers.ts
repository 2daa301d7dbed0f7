// Reading a generated app's container files without Docker: compose.yaml's services and settings
// mapped onto this machine's servers, the settings src/config.ts reads, and .env.example's names.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** A compose service, as far as the tests read it. */
export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
  volumes?: string[];
}

export interface ComposeFile {
  name: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** The app's compose.yaml, parsed as Docker Compose does (YAML merge keys `<<:` resolved). */
export function readCompose(app: string): ComposeFile {
  return parse(readFileSync(join(app, 'compose.yaml'), 'utf8'), { merge: true }) as ComposeFile;
}

/**
 * `value` with compose's `${NAME:-default}` and `${NAME}` interpolated from `env` (an empty
 * environment by default: the file's own defaults, as on a machine with no `.env`).
 */
export function interpolate(value: string, env: NodeJS.ProcessEnv = {}): string {
  return value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    const set = env[name];
    return set === undefined || set === '' ? (fallback ?? '') : set;
  });
}

/**
 * The settings compose gives `service`, interpolated, with every URL naming a compose service
 * pointed at 127.0.0.1 on the same port (where this machine's servers listen) and the entries of
 * `overrides` (e.g. the test's own database) in place of the file's.
 */
export function localSettings(
  compose: ComposeFile,
  service: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [name, raw] of Object.entries(compose.services[service]?.environment ?? {})) {
    const value = interpolate(String(raw));
    settings[name] = name in overrides ? overrides[name]! : onThisMachine(compose, value);
  }
  return settings;
}

function onThisMachine(compose: ComposeFile, value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !(url.hostname in compose.services)) return value;
  return value
    .replace(`@${url.hostname}:`, '@127.0.0.1:')
    .replace(`//${url.hostname}:`, '//127.0.0.1:');
}

/** The services `service` waits for, by name, with the condition it waits on. */
export function dependenciesOf(compose: ComposeFile, service: string): [string, string][] {
  return Object.entries(compose.services[service]?.depends_on ?? {}).map(([name, dependency]) => [
    name,
    dependency.condition,
  ]);
}

/** The `host:port` pairs haproxy.cfg sends requests to (its `server` and `server-template` lines). */
export function loadBalancerUpstreams(app: string): { host: string; port: number }[] {
  const config = readFileSync(join(app, 'haproxy.cfg'), 'utf8');
  return [...config.matchAll(/^\s*server(?:-template)?\s+\S+\s+(?:\d+\s+)?([\w.-]+):(\d+)/gm)].map(
    ([, host, port]) => ({ host: host!, port: Number(port) }),
  );
}

/** The setting names `.env.example` lists, set (`NAME=...`) or commented out (`# NAME=...`). */
export function exampleSettings(app: string): string[] {
  const text = readFileSync(join(app, '.env.example'), 'utf8');
  return [...text.matchAll(/^(?:#\s*)?([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => name!);
}

/**
 * The environment variables the app's src/config.ts reads, found two ways: the names it reads
 * while it loads (process.env watched in a child process, after the packages it imports have
 * loaded, so their own variables do not count) and the names written in it as `env.NAME` or as
 * the name argument of an `env...(env, 'NAME', ...)` reader.
 */
export function configSettings(app: string, env: NodeJS.ProcessEnv): string[] {
  const source = readFileSync(join(app, 'src', 'config.ts'), 'utf8');
  const written = [
    ...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b|\(\s*env,\s*'([A-Z][A-Z0-9_]*)'/g),
  ].map(([, member, argument]) => (member ?? argument)!);
  const script = `
    import { readFileSync } from 'node:fs';
    import { resolve } from 'node:path';
    import { pathToFileURL } from 'node:url';
    const source = readFileSync('src/config.ts', 'utf8');
    for (const [, specifier] of source.matchAll(/from '([^.'][^']*)'/g)) await import(specifier);
    const reads = new Set();
    const configFile = resolve('src/config.ts');
    Error.stackTraceLimit = 100;
    const real = process.env;
    process.env = new Proxy(real, {
      get(target, key) {
        // Only reads made by config.ts's own code (or a reader it calls), not the loader's.
        if (typeof key === 'string' && new Error().stack.includes(configFile)) reads.add(key);
        return Reflect.get(target, key);
      },
    });
    await import(pathToFileURL(configFile).href);
    process.env = real;
    process.stdout.write(JSON.stringify([...reads]));
  `;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=slicekit-source', '--input-type=module', '-e', script],
    { cwd: app, env, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`loading src/config.ts failed:\n${result.stderr}`);
  const read = JSON.parse(result.stdout) as string[];
  return [...new Set([...written, ...read])].sort();
}

/**
 * Deletes the JetStream stream `name` on the NATS server at `url` when it exists (a run's own
 * stream, made by an app started with EVENTS_STREAM=name); a server that does not answer is left.
 */
export async function deleteStream(url: string, name: string): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const connection = await connect({ servers: url, timeout: 3000 }).catch(() => undefined);
  if (!connection) return;
  try {
    const manager = await jetstreamManager(connection);
    const names: string[] = [];
    for await (const stream of manager.streams.names()) names.push(stream);
    if (names.includes(name)) await manager.streams.delete(name);
  } finally {
    await connection.close();
  }
}

/** The settings `.env.example` sets (its lines not commented out), by name. */
export function exampleDefaults(app: string): Record<string, string> {
  const text = readFileSync(join(app, '.env.example'), 'utf8');
  return Object.fromEntries(
    [...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [name!, value!]),
  );
}

/** What the app's src/config.ts exports when it loads with `env`, as JSON. */
export function configValues(app: string, env: NodeJS.ProcessEnv): string {
  const script = `
    import { resolve } from 'node:path';
    import { pathToFileURL } from 'node:url';
    const config = await import(pathToFileURL(resolve('src/config.ts')).href);
    process.stdout.write(JSON.stringify({ ...config }));
  `;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=slicekit-source', '--input-type=module', '-e', script],
    { cwd: app, env, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`loading src/config.ts failed:\n${result.stderr}`);
  return result.stdout;
}
