// Structural check of a spec with ajv: types, allowed keys and values. Each ajv error becomes a
// problem naming its path and the fix written beside that place in the schema.
import { Ajv, type ErrorObject } from 'ajv';
import { nearest, type SpecProblem } from './errors.js';
import { entitySpecSchema } from './schema.js';

type Schema = { fix?: string; properties?: Record<string, Schema> } & Record<string, unknown>;

let validator: ReturnType<Ajv['compile']> | undefined;

function validate(): ReturnType<Ajv['compile']> {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, verbose: true });
    ajv.addKeyword({ keyword: 'fix', schemaType: 'string' });
    validator = ajv.compile(entitySpecSchema);
  }
  return validator;
}

/** `/actions/0/verb` -> `actions[0].verb`. */
export function pathOf(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1);
  if (extra !== undefined) parts.push(extra);
  return parts
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part),
      '',
    );
}

const shown = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 40)}...` : text;
};

const typeName = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'a list'
      : typeof value === 'object'
        ? 'a mapping'
        : `${typeof value} ${shown(value)}`;

function problemOf(error: ErrorObject): SpecProblem {
  const parent = (error.parentSchema ?? {}) as Schema;
  const fix = parent.fix ?? 'see docs/entity-spec.md';
  const params = error.params as Record<string, unknown>;
  const path = pathOf(error.instancePath);
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const missingFix = parent.properties?.[missing]?.fix;
      return {
        path: pathOf(error.instancePath, missing),
        message: 'is missing',
        fix: missingFix ?? fix,
      };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const allowed = Object.keys(parent.properties ?? {});
      const guess = nearest(extra, allowed);
      return {
        path: pathOf(error.instancePath, extra),
        message: 'is not a key here',
        fix: `${guess ? `did you mean ${guess}? ` : ''}the keys here are ${allowed.join(', ')}`,
      };
    }
    case 'enum':
      return { path, message: `${shown(error.data)} is not allowed`, fix };
    case 'type':
      return {
        path,
        message: `must be ${params.type === 'object' ? 'a mapping' : params.type === 'array' ? 'a list' : `a ${String(params.type)}`}, not ${typeName(error.data)}`,
        fix,
      };
    case 'pattern':
      return { path, message: `${shown(error.data)} is not written as expected`, fix };
    default:
      return { path, message: `${shown(error.data)} ${error.message ?? 'is invalid'}`, fix };
  }
}

/**
 * The structural problems of `spec` (an empty list when it is well formed). `oneOf` places (a
 * parameter is a name or an object) report the branch the value's own type picked.
 */
export function structuralProblems(spec: unknown): SpecProblem[] {
  const check = validate();
  if (check(spec)) return [];
  let errors = [...(check.errors ?? [])];
  for (const oneOf of errors.filter((e) => e.keyword === 'oneOf')) {
    const branch =
      typeof oneOf.data === 'string'
        ? 0
        : typeof oneOf.data === 'object' && oneOf.data !== null
          ? 1
          : -1;
    const keep = `${oneOf.schemaPath}/${branch}/`;
    errors = errors.filter(
      (e) =>
        e === oneOf ||
        !e.schemaPath.startsWith(`${oneOf.schemaPath}/`) ||
        e.schemaPath.startsWith(keep),
    );
    if (branch >= 0) errors = errors.filter((e) => e !== oneOf);
  }
  // propertyNames errors point at the mapping; the name itself is what is wrong.
  const problems = errors.map((e) => {
    const name = (e.params as { propertyName?: string }).propertyName;
    if (e.keyword === 'propertyNames') return undefined;
    if (name !== undefined) {
      return {
        path: pathOf(e.instancePath, name),
        message: `${shown(name)} is not a camelCase name`,
        fix: 'write field names in camelCase, e.g. isDiscontinued',
      };
    }
    return problemOf(e);
  });
  const seen = new Set<string>();
  return problems.filter((p): p is SpecProblem => {
    if (!p) return false;
    const key = `${p.path}|${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
