// Several entities in one run: `npx plop entity -- --spec <folder>` (or several files) loads every
// spec, checks each against the app and the others (relations included), and orders them so every
// referenced entity is generated, and migrated, before the entities referencing it.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { checkAgainstApp, loadAppModel, withEntity, type AppModel } from '../model/app.js';
import { EntitySpecError, type SpecProblem } from '../model/errors.js';
import { dependencyOrder, referencedEntities, resolveRelations } from '../model/relations.js';
import type { EntityModel } from '../model/types.js';
import { existingMigration } from './actions.js';

/** One spec to generate: its model, the text saved beside its slice and where it came from. */
export interface LoadedSpec {
  model: EntityModel;
  specText: string;
  source: string;
}

/** A spec in the run's order, with its resolved relations and the stamp of its migration. */
export interface PlannedSpec extends LoadedSpec {
  now: Date;
}

const SPEC_FILE = /\.(ya?ml|json)$/i;

/**
 * The spec files `--spec` names: a file, a folder (each YAML or JSON file in it, by name), or
 * several of either, separated by commas or given one after another (`--spec a.yaml b.yaml`, as a
 * shell glob expands; plop keeps only the first, so the rest are read from the command line).
 */
export function specFiles(
  spec: string | undefined,
  argv: readonly string[] = process.argv.slice(2),
): string[] {
  if (!spec) return [];
  // Only plop's own command line (`plop entity -- --spec ...`), never a test runner's `--spec`.
  const at = argv.indexOf('--spec');
  const cli = at > argv.indexOf('entity') && argv.indexOf('entity') >= 0 && argv[at + 1] === spec;
  const following = cli ? argv.slice(at + 2) : [];
  const stop = following.findIndex((a) => a.startsWith('-'));
  const extra = stop < 0 ? following : following.slice(0, stop);
  return [spec, ...extra]
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter(Boolean)
    .flatMap((item) => {
      const path = isAbsolute(item) ? item : resolve(process.cwd(), item);
      if (!existsSync(path) || !statSync(path).isDirectory()) return [path];
      return readdirSync(path)
        .filter((file) => SPEC_FILE.test(file))
        .sort()
        .map((file) => join(path, file));
    });
}

/** Specs as loaded: the sound ones, those resolved with their broken parts set aside, the error. */
export interface LoadedSpecs {
  specs: LoadedSpec[];
  /** The problems found loading them, reported with those of the checks against the app. */
  failure?: EntitySpecError;
}

/**
 * Loads each spec with `load` (each of `sources`), gathering the problems of every broken one; a
 * broken spec whose model could be resolved with its broken parts set aside stays in the list,
 * so its references and the app are checked in the same run (planEntities reports all at once).
 */
export function loadSpecs(
  sources: readonly string[],
  load: (source: string) => { model: EntityModel; specText: string },
): LoadedSpecs {
  const problems: SpecProblem[] = [];
  const broken: string[] = [];
  let only: EntitySpecError | undefined;
  const specs = sources.flatMap((source): LoadedSpec[] => {
    try {
      return [{ ...load(source), source }];
    } catch (error) {
      if (!(error instanceof EntitySpecError)) throw error;
      only = error;
      broken.push(source);
      const at = (path: string) => (sources.length === 1 ? path : `${source}: ${path}`);
      problems.push(...error.problems.map((p) => ({ ...p, path: at(p.path) })));
      return error.partial ? [{ model: error.partial, specText: '', source }] : [];
    }
  });
  if (problems.length === 0) return { specs };
  const failure =
    sources.length === 1 && only
      ? only
      : new EntitySpecError(`the specs (${broken.join(', ')})`, problems);
  return { specs, failure };
}

/**
 * `error`'s problems when it is an EntitySpecError. Anything else is thrown again, or, when the
 * specs had problems already (a model resolved with broken parts set aside may trip a check it
 * never reaches when sound), those problems are.
 */
function problemsOf(error: unknown, failure?: EntitySpecError): readonly SpecProblem[] {
  if (error instanceof EntitySpecError) return error.problems;
  throw failure ?? error;
}

const SECOND = 1000;

/** The stamp of a migration name (`20240501093000_create_orders`), as a Date. */
function stampOf(name: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(name)!;
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/**
 * Checks `specs` against the app in `appDir` and each other and orders them: every entity after
 * those it references. Each gets the stamp of its create migration: `now` plus one second per
 * place, and always after the migrations of the tables it references, so `npm run migrate` on an
 * empty database creates them in order whichever way they were generated.
 */
export function planEntities(
  appDir: string,
  specs: readonly LoadedSpec[],
  now: Date = new Date(),
  failure?: EntitySpecError,
): { app: AppModel; planned: PlannedSpec[] } {
  let app = loadAppModel(appDir);
  const names = new Set<string>();
  // Every problem is gathered, those found loading the specs first, and reported at once.
  const problems: SpecProblem[] = [...(failure?.problems ?? [])];
  let first: EntitySpecError | undefined = failure;
  const report = (error: unknown, prefix = '') => {
    first ??= error instanceof EntitySpecError ? error : undefined;
    const found = problemsOf(error, failure);
    problems.push(...found.map((p) => ({ ...p, path: `${prefix}${p.path}` })));
  };
  const prefix = (spec: LoadedSpec) => (specs.length > 1 ? `${spec.source}: ` : '');
  for (const spec of specs) {
    if (names.has(spec.model.name.pascal)) {
      report(
        new EntitySpecError(spec.source, [
          {
            path: 'entity',
            message: `${spec.model.name.pascal} is given by two specs`,
            fix: 'give each entity once',
          },
        ]),
      );
      continue;
    }
    names.add(spec.model.name.pascal);
    try {
      checkAgainstApp(app, spec.model, spec.source);
    } catch (error) {
      report(error, prefix(spec));
    }
    app = withEntity(app, spec.model);
  }
  const checked = new Map(specs.map((s) => [s.model.name.pascal, s.source]));
  let resolved = app.entities;
  try {
    resolved = resolveRelations(app.entities, checked);
  } catch (error) {
    report(error);
  }
  if (first && problems.length === first.problems.length) throw first;
  if (first) {
    const source =
      specs.length === 1 ? specs[0]!.source : `the specs (${[...checked.values()].join(', ')})`;
    throw new EntitySpecError(source, problems);
  }
  app = { ...app, entities: resolved };
  const byName = new Map(resolved.map((e) => [e.name.pascal, e]));
  const ordered = dependencyOrder(specs.map((s) => byName.get(s.model.name.pascal)!));
  const stamps = new Map<string, number>();
  const planned = ordered.map((model, i) => {
    const spec = specs.find((s) => s.model.name.pascal === model.name.pascal)!;
    let at = now.getTime() + i * SECOND;
    for (const name of referencedEntities(model)) {
      const table = byName.get(name)?.table;
      const existing = table ? existingMigration(appDir, table) : undefined;
      const after = stamps.get(name) ?? (existing ? stampOf(existing).getTime() : undefined);
      if (after !== undefined && at <= after) at = after + SECOND;
    }
    stamps.set(model.name.pascal, at);
    return { ...spec, model, now: new Date(at) };
  });
  return { app, planned };
}
