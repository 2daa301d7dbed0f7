// Checks of the reference graph of an app: no cycle that no row or migration order could create,
// and one nested route per one-to-many under each parent.
import type { SpecProblem } from './errors.js';
import type { EntityModel, FieldModel } from './types.js';

/** Every reference field of an entity, single and many, with the spec path naming it. */
export function referencesOf(e: EntityModel): { field: FieldModel; path: string }[] {
  return [...e.fields, ...e.links]
    .filter((f) => f.reference)
    .map((field) => ({ field, path: `fields.${field.reference!.name.camel}` }));
}

/** A cycle of references through `start`, as entity names (`Order -> Customer -> Order`). */
function cycleThrough(
  start: EntityModel,
  byName: ReadonlyMap<string, EntityModel>,
  requiredOnly: boolean,
): string[] | undefined {
  const next = (e: EntityModel) =>
    referencesOf(e)
      .filter(({ field }) => !requiredOnly || (field.required && !field.reference!.many))
      .map(({ field }) => field.reference!.entity);
  const walk = (e: EntityModel, path: string[]): string[] | undefined => {
    for (const name of next(e)) {
      if (name === start.name.pascal) {
        // An optional reference to its own entity (a parent row) creates in one table.
        if (path.length === 1 && !requiredOnly) continue;
        return [...path, name];
      }
      const other = byName.get(name);
      if (other && !path.includes(name)) {
        const found = walk(other, [...path, name]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(start, [start.name.pascal]);
}

/** Problems of the cycles of references through `e`. */
export function cycleProblems(
  e: EntityModel,
  byName: ReadonlyMap<string, EntityModel>,
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const required = cycleThrough(e, byName, true);
  const any = required ?? cycleThrough(e, byName, false);
  if (any) {
    const first = referencesOf(e).find(({ field }) => field.reference!.entity === any[1]);
    problems.push({
      path: first?.path ?? 'fields',
      message: required
        ? `a cycle of required references (${any.join(' -> ')}): no row of them could be created first`
        : `a cycle of references (${any.join(' -> ')}): no migration order creates their tables`,
      fix: required
        ? 'make one of these references optional (required: false), or drop one'
        : 'drop one of these references, or keep the link in a table of its own',
    });
  }
  return problems;
}

/** Each one-to-many under `/v1/<resource>/{id}/<inverse>` must be a route of its own. */
export function routeProblems(
  e: EntityModel,
  byName: ReadonlyMap<string, EntityModel>,
  all: readonly EntityModel[],
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  for (const { field, path } of referencesOf(e)) {
    const ref = field.reference!;
    const parent = byName.get(ref.entity);
    if (ref.many || !parent) continue;
    const taken = all
      .flatMap((other) =>
        other === e
          ? []
          : referencesOf(other).filter(
              ({ field: f }) =>
                !f.reference!.many &&
                f.reference!.entity === ref.entity &&
                f.reference!.inverse.kebab === ref.inverse.kebab,
            ),
      )
      .concat(
        referencesOf(e).filter(
          ({ field: f }) =>
            f !== field &&
            !f.reference!.many &&
            f.reference!.entity === ref.entity &&
            f.reference!.inverse.kebab === ref.inverse.kebab,
        ),
      );
    const segment = parent.methods.some((m) => m.segment === ref.inverse.kebab);
    if (taken.length > 0 || segment) {
      problems.push({
        path: `${path}.inverse`,
        message: `/v1/${parent.resource}/{id}/${ref.inverse.kebab} is already ${segment ? `a route of ${parent.name.pascal}` : 'the nested route of another reference'}`,
        fix: `name the one-to-many otherwise with inverse: ..., e.g. inverse: ${e.plural.camel}By${ref.name.pascal}`,
      });
    }
  }
  return problems;
}
