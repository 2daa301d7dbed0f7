// Runs a generated app's Dockerfile without Docker, where containers cannot be built: each stage is
// a folder standing for the image's file system, COPY copies from the build context (filtered by
// .dockerignore) or an earlier stage, and every RUN runs there as an unprivileged user.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { run } from './processes.js';

/** One instruction: its keyword and the rest of its (joined) lines. */
export interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions of a Dockerfile, continuation lines joined and comments left out. */
export function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
      if (!keyword || args === undefined) throw new Error(`cannot read Dockerfile line: ${line}`);
      return { keyword: keyword.toUpperCase(), args };
    });
}

/** An exec-form argument (`["node", "x.js"]`) as its words. */
export function execForm(args: string): string[] {
  const words = JSON.parse(args) as unknown;
  if (!Array.isArray(words) || !words.every((word) => typeof word === 'string')) {
    throw new Error(`not an exec-form command: ${args}`);
  }
  return words;
}

/** A .dockerignore as a test of paths relative to the context (the last matching rule wins). */
export function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
      const source = pattern
        .split('**')
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replaceAll('*', '[^/]*')
            .replaceAll('?', '[^/]'),
        )
        .join('.*');
      // A rule for a folder covers everything in it.
      return { negated, regex: new RegExp(`^${source}(/.*)?$`) };
    });
  return (path) => {
    let ignored = false;
    for (const rule of rules) if (rule.regex.test(path)) ignored = !rule.negated;
    return ignored;
  };
}

/** Who the commands run as: `nobody` when the tests run as root, else the current user. */
export function unprivileged(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  const drop = ['--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'];
  return ['setpriv', [...drop, command, ...args]];
}

/** Hands `path` (recursively) to the unprivileged user. */
export function handOver(path: string): void {
  if (process.getuid?.() !== 0) return;
  const result = spawnSync('chown', ['-R', 'nobody:nogroup', path], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`chown ${path} failed: ${result.stderr}`);
}

export interface BuiltImage {
  /** The final stage's working folder (the image's WORKDIR), e.g. <root>/final/app. */
  workdir: string;
  /** The final stage's ENV. */
  env: Record<string, string>;
  /** CMD, exec form. */
  cmd: string[];
  /** HEALTHCHECK's command, exec form. */
  healthcheck: string[];
  /** Every RUN command, in order, for the record. */
  runs: string[];
}

/**
 * Builds the Dockerfile of `context` under `root` (a folder the unprivileged user can reach):
 * every RUN runs as that user with `env` (HOME, npm's cache and registry...) beneath the ENV set so
 * far. Rejects on the first command that fails.
 */
export async function buildWithoutDocker(
  context: string,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<BuiltImage> {
  const instructions = parseDockerfile(readFileSync(join(context, 'Dockerfile'), 'utf8'));
  const ignored = dockerignore(readFileSync(join(context, '.dockerignore'), 'utf8'));
  const stages = new Map<string, string>();
  let stage = '';
  let workdir = '';
  let stageEnv: Record<string, string> = {};
  let cmd: string[] = [];
  let healthcheck: string[] = [];
  const runs: string[] = [];
  const inStage = (path: string) =>
    path.startsWith('/') ? join(stage, path) : join(workdir, path);

  for (const { keyword, args } of instructions) {
    switch (keyword) {
      case 'ARG':
      case 'EXPOSE':
      case 'VOLUME':
      case 'USER':
        break;
      case 'FROM': {
        const name = /\bAS\s+(\S+)$/i.exec(args)?.[1] ?? `stage-${stages.size}`;
        stage = join(root, name);
        mkdirSync(stage, { recursive: true });
        stages.set(name, stage);
        workdir = stage;
        stageEnv = {};
        break;
      }
      case 'WORKDIR':
        workdir = inStage(args);
        mkdirSync(workdir, { recursive: true });
        break;
      case 'ENV':
        for (const [, name, value] of args.matchAll(/(\w+)=(\S+)/g)) stageEnv[name!] = value!;
        break;
      case 'COPY': {
        const words = args.split(/\s+/);
        const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
        const paths = words.filter((word) => !word.startsWith('--'));
        const destination = paths.pop()!;
        const target = inStage(destination);
        const intoFolder = paths.length > 1 || destination.endsWith('/') || destination === '.';
        for (const source of paths) {
          const into = intoFolder && source !== '.' ? join(target, basename(source)) : target;
          if (from === undefined) copyContext(context, source, into, ignored);
          else cpSync(join(stages.get(from) ?? '', source), into, { recursive: true });
          // --chown=<the app's user>: the files are that user's (here the unprivileged one);
          // without it they stay root's, read-only to the app, as in the image.
          if (words.some((word) => word.startsWith('--chown='))) handOver(into);
        }
        break;
      }
      case 'RUN': {
        runs.push(args);
        // Docker runs these as root; here the unprivileged user runs them, in a stage it owns.
        handOver(stage);
        const [command, commandArgs] = unprivileged('sh', ['-c', args]);
        await run(command, commandArgs, { cwd: workdir, env: { ...env, ...stageEnv } });
        break;
      }
      case 'HEALTHCHECK':
        healthcheck = execForm(args.slice(args.indexOf('CMD ') + 'CMD '.length));
        break;
      case 'CMD':
        cmd = execForm(args);
        break;
      default:
        throw new Error(`the Dockerfile uses ${keyword}, which this test does not run`);
    }
  }
  return { workdir, env: stageEnv, cmd, healthcheck, runs };
}

/** COPY from the build context: `source` (a file, or `.` for all of it) minus what is ignored. */
function copyContext(
  context: string,
  source: string,
  target: string,
  ignored: (path: string) => boolean,
): void {
  const walk = (path: string, into: string): void => {
    if (ignored(relative(context, path))) return;
    if (!statSync(path).isDirectory()) {
      cpSync(path, into);
      return;
    }
    mkdirSync(into, { recursive: true });
    for (const name of readdirSync(path)) walk(join(path, name), join(into, name));
  };
  const origin = join(context, source);
  if (source === '.') {
    for (const name of readdirSync(origin)) walk(join(origin, name), join(target, name));
  } else {
    walk(origin, target);
  }
}
