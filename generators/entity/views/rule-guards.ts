// The guard clauses of the declared rules (the spec's `rules`) in <entity>.entity.ts: after the
// constructor's assignments, and after each method's effects for the rules it touches
// (templates/entity/partials/rule-guard.hbs).
import { methodRules, ruleFields } from '../../model/rules.js';
import type { EntityModel, FieldModel, MethodModel, RuleModel } from '../../model/types.js';

const WORDS = {
  number: { '<': 'less than', '<=': 'at most', '>': 'greater than', '>=': 'at least' },
  time: { '<': 'before', '<=': 'on or before', '>': 'after', '>=': 'on or after' },
} as const;

/** `dueOn must be after loanedOn`, `extensions must be at most 2`. */
export function ruleSentence(rule: RuleModel): string {
  const words = rule.left.type === 'integer' || rule.left.type === 'decimal' ? 'number' : 'time';
  const right = 'field' in rule.right ? rule.right.field.name.camel : String(rule.right.value);
  return `${rule.left.name.camel} must be ${WORDS[words][rule.operator]} ${right}`;
}

/** `${this.dueOn}` in a template literal; a date-time as its ISO text. */
const shown = (f: FieldModel): string =>
  f.type === 'date-time' ? `\${this.${f.name.camel}?.toISOString()}` : `\${this.${f.name.camel}}`;

/** A guard clause: the test that the rule is broken, its code, message and status. */
export interface RuleGuard {
  test: string;
  code: string;
  message: string;
  unprocessable: boolean;
}

function guard(rule: RuleModel, status: 409 | 422): RuleGuard {
  const sides = 'field' in rule.right ? [rule.left, rule.right.field] : [rule.left];
  const right = 'field' in rule.right ? `this.${rule.right.field.name.camel}` : rule.right.value;
  // An empty side leaves the rule nothing to compare: it holds.
  const present = sides.filter((f) => !f.notNull).map((f) => `this.${f.name.camel} != null && `);
  const values = sides.map((f) => `${f.name.camel} is ${shown(f)}`).join(', ');
  return {
    test: `${present.join('')}!(this.${rule.left.name.camel} ${rule.operator} ${right})`,
    code: rule.code,
    message: `${ruleSentence(rule)}; ${values}`,
    unprocessable: status === 422,
  };
}

/** The constructor's guards: a new row breaking a rule is the request's fault (422). */
export function createGuards(model: EntityModel): RuleGuard[] {
  const created = new Set(model.create.map((p) => p.field));
  // A rule between fields the constructor leaves at their defaults holds already.
  return model.rules
    .filter((r) => ruleFields(r).some((f) => created.has(f)))
    .map((r) => guard(r, 422));
}

/** A method's guards, after its effects. */
export const methodGuards = (model: EntityModel, method: MethodModel): RuleGuard[] =>
  methodRules(model.rules, method).map(({ rule, status }) => guard(rule, status));
