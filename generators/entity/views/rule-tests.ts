// The generated tests of each method precondition (the spec's `when`): the column values that put
// a row where the method is refused, and where it is allowed, as data the test template writes to
// the table before calling the route; and those of the declared rules (the spec's `rules`).
import { fieldKinds } from '@slicekit/runtime/fields';
import { methodRules, ruleFields } from '../../model/rules.js';
import type { ConditionModel, EntityModel, FieldModel, RuleModel } from '../../model/types.js';
import { breakingValue } from '../rule-samples.js';

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

/** A test breaking a declared rule: by a create, or by a method on a created row. */
export interface RuleBreak {
  title: string;
  code: string;
  status: 409 | 422;
  /** The create body, for a create that breaks it. */
  createBody?: Record<string, unknown>;
  /** The method (its view), its body, and the column values written before calling it. */
  method?: object;
  body?: Record<string, unknown>;
  arrange?: Record<string, unknown>;
}

/** The value a rule compares `f` with in `row`: the other field's, or the bound. */
function otherSide(rule: RuleModel, f: FieldModel, row: ReadonlyMap<string, unknown>): unknown {
  if ('value' in rule.right) return rule.right.value;
  const other = f === rule.left ? rule.right.field : rule.left;
  return row.get(other.name.camel);
}

/** Whether a request may carry `value` for `f` (the break must reach the entity, not be a 400). */
const acceptable = (f: FieldModel, value: unknown): boolean =>
  value != null && fieldKinds[f.type].problem(value, f) === undefined;

/**
 * The generated tests of the declared rules: for each rule, a create breaking it (422) when the
 * create request sets a side; for each method changing a side, a call breaking it (422 with a
 * body breaking it, 409 from a state one step short of the bound).
 */
export function ruleBreaksView<M extends { allowed?: Record<string, unknown> }>(
  model: EntityModel,
  methods: readonly M[],
  createBody: Record<string, unknown>,
  created: ReadonlyMap<string, unknown>,
  bodies: readonly Record<string, unknown>[],
  afters: readonly ReadonlyMap<string, unknown>[],
): { ruleBreaks: RuleBreak[] } {
  const ruleBreaks: RuleBreak[] = [];
  const createNames = new Set(model.create.map((p) => p.name.camel));
  for (const rule of model.rules) {
    const side = ruleFields(rule).find((f) => createNames.has(f.name.camel));
    if (!side) continue;
    const other = otherSide(rule, side, created);
    if (other == null) continue;
    const value = breakingValue(rule, side, other);
    if (!acceptable(side, value)) continue;
    ruleBreaks.push({
      title: `create answers 422 naming ${rule.code} when ${side.name.camel} is ${String(value)}`,
      code: rule.code,
      status: 422,
      createBody: { ...createBody, [side.name.camel]: value },
    });
  }
  model.methods.forEach((m, i) => {
    for (const { rule, status } of methodRules(model.rules, m)) {
      const effect = m.effects.find((e) => ruleFields(rule).includes(e.field))!;
      const f = effect.field;
      const other = otherSide(rule, f, afters[i]!);
      if (other == null) continue;
      const broken = breakingValue(rule, f, other);
      const view = methods[i]!;
      if (effect.source.kind === 'param') {
        if (!acceptable(f, broken)) continue;
        ruleBreaks.push({
          title: `${m.name.camel} answers 422 naming ${rule.code} when ${f.name.camel} is ${String(broken)}, and changes nothing`,
          code: rule.code,
          status: 422,
          method: view,
          body: { ...bodies[i]!, [effect.source.param.name.camel]: broken },
          ...(view.allowed ? { arrange: view.allowed } : {}),
        });
      } else if (effect.source.kind === 'step') {
        // One step short of breaking it: the step the method takes breaks it.
        const strict = rule.operator.length === 1;
        const start = Number(strict ? other : broken) - effect.source.by;
        ruleBreaks.push({
          title: `${m.name.camel} answers ${status} naming ${rule.code} when ${f.name.camel} is ${start}, and changes nothing`,
          code: rule.code,
          status,
          method: view,
          body: bodies[i]!,
          arrange: { ...view.allowed, [f.column]: start },
        });
      }
    }
  });
  return { ruleBreaks };
}
