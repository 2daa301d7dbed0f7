// The generated test of each method precondition (the spec's `when`): the column values that put a
// row where the method is refused, and where it is allowed, as data the test template writes to
// the table before calling the route.
import type { ConditionModel, EntityModel } from '../../model/types.js';

/** A value the field can hold that the condition does not allow; undefined when it allows all. */
function refusedValue(condition: ConditionModel): string | boolean | undefined {
  const { field, values } = condition;
  const all: (string | boolean)[] = field.type === 'boolean' ? [true, false] : (field.values ?? []);
  return all.find((v) => !values.includes(v));
}

/** Column values putting a row in the state each condition allows (its first value). */
export function allowedState(conditions: readonly ConditionModel[]): Record<string, unknown> {
  return Object.fromEntries(conditions.map((c) => [c.field.column, c.values[0]]));
}

/**
 * What a test must write before calling a method with `conditions` on a row it just created: the
 * allowed values of the fields whose default the method does not allow (or that the create
 * request sets); undefined when a new row is allowed as it is.
 */
export function arrangeState(
  model: EntityModel,
  conditions: readonly ConditionModel[],
): Record<string, unknown> | undefined {
  const created = new Set(model.create.map((p) => p.field));
  const pending = conditions.filter(
    (c) =>
      created.has(c.field) ||
      !c.field.hasDefault ||
      !c.values.includes(c.field.default as string | boolean),
  );
  return pending.length > 0 ? allowedState(pending) : undefined;
}

/** `status is draft or held` */
const describe = (c: ConditionModel, values: readonly (string | boolean)[]): string =>
  `${c.field.name.camel} is ${values.map(String).join(' or ')}`;

/**
 * For each guarded method (by index in `model.methods`), its rule test: one condition made false
 * (the first that can be), the others true, and the rule code the 409 names.
 */
export function ruleTestsView<M extends object>(model: EntityModel, methods: readonly M[]) {
  const ruleTests = model.methods.flatMap((m, i) => {
    const refusable = m.when.find((c) => refusedValue(c) !== undefined);
    if (!refusable) return [];
    const allowed = allowedState(m.when);
    return [
      {
        ...methods[i]!,
        conditionText: m.when.map((c) => describe(c, c.values)).join(' and '),
        rule: refusable.rule,
        refused: { ...allowed, [refusable.field.column]: refusedValue(refusable) },
        refusedText: describe(refusable, [refusedValue(refusable)!]),
        allowed,
      },
    ];
  });
  return { ruleTests };
}
