// Preconditions of a method (`when: { status: draft }`): the fields it names and the values it
// allows, checked against the spec's fields. The entity method throws a RuleViolation when one
// does not hold.
import { nameForms } from '../names.js';
import type { Scope } from './params.js';
import type { ConditionModel, FieldModel, MethodSpec } from './types.js';

type Allowed = MethodSpec['when'];

/** Fields a precondition may name: an enum or a boolean, compared by value. */
const comparable = (f: FieldModel): boolean =>
  f.role === 'field' && (f.type === 'enum' || f.type === 'boolean') && !f.reference;

/** Why `value` cannot be a value of `field`, or undefined when it can. */
function valueProblem(field: FieldModel, value: string | boolean): string | undefined {
  if (field.type === 'boolean') {
    return typeof value === 'boolean' ? undefined : `${JSON.stringify(value)} is not true or false`;
  }
  if (typeof value === 'string' && field.values?.includes(value)) return undefined;
  return `${JSON.stringify(value)} is not a value of ${field.name.camel}`;
}

/**
 * The preconditions of method `name` at `path` (`actions[0]`), each a field and its allowed
 * values; every mistake is a problem naming the method, the field and the fix.
 */
export function resolveConditions(
  scope: Scope,
  path: string,
  name: string,
  when: Allowed,
): ConditionModel[] {
  const conditions: ConditionModel[] = [];
  const candidates = [...scope.fields.values()].filter(comparable).map((f) => f.name.camel);
  for (const [key, given] of Object.entries(when ?? {})) {
    const at = `${path}.when.${key}`;
    const field = scope.fields.get(key);
    if (!field || !comparable(field)) {
      scope.problems.push({
        path: at,
        message: field
          ? `${name} cannot depend on ${key}: it is ${field.type}, and when compares enum and boolean fields only`
          : `${name} cannot depend on "${key}": ${scope.entity} has no such field`,
        fix: candidates.length
          ? `name one of ${candidates.join(', ')}, or write the rule in the entity method (throw new RuleViolation)`
          : 'add an enum or boolean field, or write the rule in the entity method (throw new RuleViolation)',
      });
      continue;
    }
    const values = Array.isArray(given) ? given : [given];
    const wrong = values.map((v) => valueProblem(field, v)).filter((p) => p !== undefined);
    if (wrong.length > 0) {
      scope.problems.push({
        path: at,
        message: `${name}: ${wrong.join('; ')}`,
        fix:
          field.type === 'boolean'
            ? 'write true or false'
            : `use ${values.length > 1 ? 'values' : 'a value'} of ${field.values!.join(', ')}`,
      });
      continue;
    }
    const rule = `${nameForms(scope.entity).camel}.${nameForms(name).camel}.${field.name.camel}`;
    conditions.push({ field, values, rule });
  }
  return conditions;
}
