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

/** Loads each spec with `load`, reporting the problems of every broken one at once. */
export function loadSpecs<T>(
  files: readonly string[],
  load: (file: string) => T,
): (T & { source: string })[] {
  const problems: SpecProblem[] = [];
  const broken: string[] = [];
  const loaded = files.flatMap((file) => {
    try {
      return [{ ...load(file), source: file }];
    } catch (error) {
      if (!(error instanceof EntitySpecError) || files.length === 1) throw error;
      broken.push(file);
      problems.push(...error.problems.map((p) => ({ ...p, path: `${file}: ${p.path}` })));
      return [];
    }
  });
  if (problems.length > 0) throw new EntitySpecError(`the specs (${broken.join(', ')})`, problems);
  return loaded;
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
): { app: AppModel; planned: PlannedSpec[] } {
  let app = loadAppModel(appDir);
  const names = new Set<string>();
  for (const spec of specs) {
    if (names.has(spec.model.name.pascal)) {
      throw new EntitySpecError(spec.source, [
        {
          path: 'entity',
          message: `${spec.model.name.pascal} is given by two specs`,
          fix: 'give each entity once',
        },
      ]);
    }
    names.add(spec.model.name.pascal);
    checkAgainstApp(app, spec.model, spec.source);
    app = withEntity(app, spec.model);
  }
  const checked = new Map(specs.map((s) => [s.model.name.pascal, s.source]));
  const resolved = resolveRelations(app.entities, checked);
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
