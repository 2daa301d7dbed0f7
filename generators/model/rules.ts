// Declared rules (`rules: [dueOn > loanedOn, extensions <= 2]`): a field compared with another
// field or with a number; and the steps (`{ increment: extensions }`) that move a number toward
// a bound. Each is checked here against the fields it names (their kinds must be
// ordered and alike); the entity class then keeps it on create and after each method changing
// either side (entity-class.ts), and samples keep it too (generators/entity/rule-samples.ts).
import { nameForms } from '../names.js';
import { nameOneOf } from './errors.js';
import type { Scope } from './params.js';
import type {
  EffectModel,
  EffectSpec,
  FieldModel,
  FieldType,
  MethodModel,
  RuleModel,
} from './types.js';

const OPERATORS = ['<=', '>=', '<', '>'] as const;
const RULE = /^\s*([A-Za-z_$][\w$]*)\s*(<=|>=|<|>)\s*([A-Za-z_$][\w$]*|-?\d+(?:\.\d+)?)\s*$/;

/** What a rule compares: numbers, days or instants; a field of another kind has no order. */
const orderOf = (type: FieldType): 'number' | 'date' | 'date-time' | undefined =>
  type === 'integer' || type === 'decimal'
    ? 'number'
    : type === 'date' || type === 'date-time'
      ? type
      : undefined;

/** `gt`, `lte`...: the operator in a rule's code. */
const CODE_WORDS = { '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' } as const;

/**
 * The rules of a spec, each `<field> <op> <field or number>` with op one of <, <=, >, >=; every
 * mistake is a problem naming the rule and the fix, pushed with the spec's other problems.
 */
export function resolveRules(scope: Scope, rules: readonly string[]): RuleModel[] {
  const resolved: RuleModel[] = [];
  const ordered = [...scope.fields.values()]
    .filter((f) => f.role === 'field' && orderOf(f.type))
    .map((f) => f.name.camel);
  const fieldAt = (path: string, name: string): FieldModel | undefined => {
    const field = scope.fields.get(name);
    if (!field) {
      scope.problems.push({
        path,
        message: `"${name}" is not a field of ${scope.entity}`,
        fix: ordered.length
          ? nameOneOf(name, ordered)
          : 'add an integer, decimal, date or date-time field',
      });
      return undefined;
    }
    if (!orderOf(field.type) || field.reference) {
      scope.problems.push({
        path,
        message: `${name} is ${field.type}, which has no order to compare`,
        fix: 'compare integer, decimal, date or date-time fields only',
      });
      return undefined;
    }
    return field;
  };
  rules.forEach((text, i) => {
    const path = `rules[${i}]`;
    const match = RULE.exec(String(text));
    if (!match) {
      scope.problems.push({
        path,
        message: `${JSON.stringify(text)} is not a rule`,
        fix: `write <field> <op> <field or number>, op one of ${OPERATORS.join(' ')}: e.g. dueOn > loanedOn, extensions <= 2`,
      });
      return;
    }
    const [, leftName, op, rightText] = match as unknown as [
      string,
      string,
      RuleModel['operator'],
      string,
    ];
    const left = fieldAt(path, leftName);
    const isNumber = /^-?\d/.test(rightText);
    const rightField = isNumber ? undefined : fieldAt(path, rightText);
    if (!left || (!isNumber && !rightField)) return;
    if (isNumber && orderOf(left.type) !== 'number') {
      scope.problems.push({
        path,
        message: `${leftName} is ${left.type}, and ${rightText} is a number`,
        fix: `compare ${leftName} with another ${left.type} field`,
      });
      return;
    }
    if (rightField && orderOf(rightField.type) !== orderOf(left.type)) {
      scope.problems.push({
        path,
        message: `${leftName} is ${left.type} but ${rightText} is ${rightField.type}: they do not compare`,
        fix: 'compare numbers with numbers, dates with dates, date-times with date-times',
      });
      return;
    }
    if (rightField === left) {
      scope.problems.push({
        path,
        message: `compares ${leftName} with itself`,
        fix: 'name another field, or a number',
      });
      return;
    }
    const right = rightField ? { field: rightField } : { value: Number(rightText) };
    const code = `${nameForms(scope.entity).camel}.${leftName}.${CODE_WORDS[op]}.${rightText}`;
    resolved.push({ text: `${leftName} ${op} ${rightText}`, left, operator: op, right, code });
  });
  return resolved;
}

/** The fields a rule names. */
export const ruleFields = (rule: RuleModel): FieldModel[] =>
  'field' in rule.right ? [rule.left, rule.right.field] : [rule.left];

/**
 * The rules a method must check after its effects, each with the status its violation answers:
 * 422 when a side comes from the request (a parameter), 409 when the row's state refuses it (a
 * step past a bound, a literal).
 */
export function methodRules(
  rules: readonly RuleModel[],
  method: MethodModel,
): { rule: RuleModel; status: 409 | 422 }[] {
  return rules.flatMap((rule) => {
    const sides = ruleFields(rule);
    const touching = method.effects.filter((e) => sides.includes(e.field));
    if (touching.length === 0) return [];
    const fromRequest = touching.some((e) => e.source.kind === 'param');
    return [{ rule, status: fromRequest ? 422 : 409 }];
  });
}

/** `{ increment: extensions, by: 1 }`: a number field stepped up or down. */
export function stepEffect(
  scope: Scope,
  at: string,
  verb: 'increment' | 'decrement',
  field: FieldModel,
  effect: EffectSpec,
): EffectModel | undefined {
  const mixed = (['value', 'from', 'now'] as const).filter((k) => effect[k] !== undefined);
  if (mixed.length > 0) {
    scope.problems.push({
      path: at,
      message: `${verb} steps ${field.name.camel}, so ${mixed.join(' and ')} has no meaning`,
      fix: `remove ${mixed.join(' and ')}, or write { set: ${field.name.camel}, ... }`,
    });
    return undefined;
  }
  if (field.type !== 'integer' && field.type !== 'decimal') {
    scope.problems.push({
      path: `${at}.${verb}`,
      message: `${field.name.camel} is ${field.type}, not a number`,
      fix: 'increment or decrement an integer or decimal field',
    });
    return undefined;
  }
  const by = effect.by ?? 1;
  if (typeof by !== 'number' || !(by > 0) || (field.type === 'integer' && !Number.isInteger(by))) {
    scope.problems.push({
      path: `${at}.by`,
      message: `${JSON.stringify(by)} is not a positive ${field.type === 'integer' ? 'whole ' : ''}number`,
      fix: 'give by: 1, or another positive number',
    });
    return undefined;
  }
  return { field, source: { kind: 'step', by: verb === 'increment' ? by : -by } };
}
