// Parameters: the constructor's and each method's, a field reference (taking the field's type and
// constraints, narrowed by overrides) or a typed parameter of its own.
import { nameForms } from '../names.js';
import { nameOneOf, type SpecProblem } from './errors.js';
import { constraintProblems, DEFAULT_PRECISION, DEFAULT_SCALE } from './fields.js';
import type { FieldModel, ParamModel, ParamSpec } from './types.js';

export interface Scope {
  entity: string;
  /** Fields a parameter may name (the spec's own fields). */
  fields: Map<string, FieldModel>;
  /** Fields an effect may set: the spec's fields, and updatedBy when audited. */
  settable: Map<string, FieldModel>;
  problems: SpecProblem[];
}

const fieldNames = (scope: Scope): string[] => [...scope.fields.keys()];

/** One parameter: a field reference (string, or object without type) or a typed parameter. */
export function resolveParam(
  scope: Scope,
  path: string,
  spec: ParamSpec,
  standalone: boolean,
): ParamModel | undefined {
  const name = typeof spec === 'string' ? spec : spec.name;
  const field = scope.fields.get(name);
  if (name === 'id') {
    scope.problems.push({
      path,
      message: 'id is not a parameter',
      fix: 'remove it; the route carries the id',
    });
    return undefined;
  }
  if (typeof spec === 'string' || spec.type === undefined) {
    if (!field) {
      scope.problems.push({
        path,
        message: `"${name}" is not a field`,
        fix: standalone
          ? `${nameOneOf(name, fieldNames(scope))}, or give { name: ${name}, type: ... }`
          : nameOneOf(name, fieldNames(scope)),
      });
      return undefined;
    }
    const overrides: Exclude<ParamSpec, string> = typeof spec === 'string' ? { name } : spec;
    // The overrides narrow the field's own constraints (an enum's values come from the field).
    scope.problems.push(
      ...constraintProblems(path, field.type, { ...copyConstraints(field), ...overrides }),
    );
    const { name: _name, type: _type, required, ...constraints } = overrides;
    return {
      ...copyConstraints(field),
      ...constraints,
      name: field.name,
      type: field.type,
      required: required ?? field.required,
      field,
    };
  }
  if (field && field.type !== spec.type) {
    scope.problems.push({
      path: `${path}.type`,
      message: `is ${spec.type} but field ${name} is ${field.type}`,
      fix: `drop type to take the field's, or rename the parameter`,
    });
    return undefined;
  }
  if (!standalone && !field) {
    scope.problems.push({
      path,
      message: `"${name}" is not a field`,
      fix: `the constructor sets fields; ${nameOneOf(name, fieldNames(scope))}`,
    });
    return undefined;
  }
  scope.problems.push(...constraintProblems(path, spec.type, spec));
  return {
    name: nameForms(name),
    type: spec.type,
    required: spec.required ?? false,
    ...(spec.minLength !== undefined ? { minLength: spec.minLength } : {}),
    ...(spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
    ...(spec.minimum !== undefined ? { minimum: spec.minimum } : {}),
    ...(spec.maximum !== undefined ? { maximum: spec.maximum } : {}),
    ...(spec.pattern !== undefined ? { pattern: spec.pattern } : {}),
    ...(spec.values ? { values: spec.values } : {}),
    ...(spec.type === 'decimal'
      ? { precision: spec.precision ?? DEFAULT_PRECISION, scale: spec.scale ?? DEFAULT_SCALE }
      : {}),
    ...(field ? { field } : {}),
  };
}

function copyConstraints(field: FieldModel): Partial<ParamModel> {
  const out: Partial<ParamModel> = {};
  for (const key of [
    'minLength',
    'maxLength',
    'minimum',
    'maximum',
    'pattern',
    'values',
    'precision',
    'scale',
  ] as const) {
    if (field[key] !== undefined) (out as Record<string, unknown>)[key] = field[key];
  }
  return out;
}

/** A list of parameters, each name once. */
export function resolveParams(
  scope: Scope,
  path: string,
  specs: readonly ParamSpec[],
  standalone: boolean,
): ParamModel[] {
  const params: ParamModel[] = [];
  specs.forEach((spec, i) => {
    const param = resolveParam(scope, `${path}[${i}]`, spec, standalone);
    if (!param) return;
    if (params.some((p) => p.name.camel === param.name.camel)) {
      scope.problems.push({
        path: `${path}[${i}]`,
        message: `${param.name.camel} is listed twice`,
        fix: 'list each parameter once',
      });
      return;
    }
    params.push(param);
  });
  return params;
}
