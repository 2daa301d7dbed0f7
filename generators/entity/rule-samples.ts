// Sample rows that keep the declared rules (the spec's `rules`): after the values are drawn, a
// rule a row breaks moves one of its sides (the one the caller may move) just far enough, dates by
// a week, numbers by one, so a seed's rows, a create body and a method's body all keep every
// rule. A number a method steps keeps room for one step below its bound.
import type { EntityModel, FieldModel, RuleModel } from '../model/types.js';

const DAY_MS = 86_400_000;
/** How far a date moves past the other side of a rule: a loan due a week after it was made. */
const DATE_STEP_DAYS = 7;

/** `value` moved by `steps` (dates by a week each, numbers by one), as `f` holds it. */
function moved(f: FieldModel, value: unknown, steps: number): unknown {
  if (f.type === 'date' || f.type === 'date-time') {
    const time = Date.parse(String(value)) + steps * DATE_STEP_DAYS * DAY_MS;
    const iso = new Date(time).toISOString();
    return f.type === 'date' ? iso.slice(0, 10) : iso;
  }
  return Number(value) + steps;
}

/** Numbers and ISO texts compared as the entity compares them (instants by time). */
function compare(f: FieldModel, a: unknown, b: unknown): number {
  if (f.type === 'date-time') return Date.parse(String(a)) - Date.parse(String(b));
  if (f.type === 'date') return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  return Number(a) - Number(b);
}

const holds = (order: number, op: RuleModel['operator']): boolean =>
  op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;

/** The largest step up (and down) any method of `model` gives `f`: the room a bound keeps. */
function stepRoom(model: EntityModel, f: FieldModel): { up: number; down: number } {
  const steps = model.methods
    .flatMap((m) => m.effects)
    .filter((e) => e.field === f && e.source.kind === 'step')
    .map((e) => (e.source.kind === 'step' ? e.source.by : 0));
  return { up: Math.max(0, ...steps), down: Math.max(0, ...steps.map((s) => -s)) };
}

/**
 * Moves the values of `row` (by property) so every rule of `model` holds; only the properties in
 * `movable` move (a method's body cannot move what the row already holds). Rules whose sides are
 * missing or empty hold. In place.
 */
export function keepRules(
  model: EntityModel,
  row: Map<string, unknown>,
  movable: ReadonlySet<string>,
): void {
  for (let pass = 0; pass < 3; pass++) {
    for (const rule of model.rules) {
      const left = rule.left;
      const l = row.get(left.name.camel);
      if (l == null) continue;
      if ('value' in rule.right) {
        // Room for a method's step, so the step the generated test takes keeps the bound.
        const room = stepRoom(model, left);
        const upper = rule.operator.startsWith('<');
        const bound = rule.right.value + (upper ? -room.up : room.down);
        if (holds(compare(left, l, bound), rule.operator)) continue;
        if (!movable.has(left.name.camel)) continue;
        const strict = rule.operator.length === 1 ? 1 : 0;
        row.set(left.name.camel, bound + (upper ? -strict : strict));
        continue;
      }
      const right = rule.right.field;
      const r = row.get(right.name.camel);
      if (r == null || holds(compare(left, l, r), rule.operator)) continue;
      const strict = rule.operator.length === 1 ? 1 : 0;
      const sign = rule.operator.startsWith('>') ? 1 : -1;
      if (movable.has(left.name.camel)) row.set(left.name.camel, moved(left, r, sign * strict));
      else if (movable.has(right.name.camel)) {
        row.set(right.name.camel, moved(right, l, -sign * strict));
      }
    }
  }
}

/**
 * A value of `f` that breaks `rule` against `other` (the other side's value, or the bound): the
 * other side itself for a strict comparison, one step past it otherwise.
 */
export function breakingValue(rule: RuleModel, f: FieldModel, other: unknown): unknown {
  const strict = rule.operator.length === 1;
  const isLeft = f === rule.left;
  // The left side breaks `>` at or below the right side; the right side breaks it at or above.
  const below = rule.operator.startsWith('>') === isLeft;
  return strict ? other : moved(f, other, below ? -1 : 1);
}
