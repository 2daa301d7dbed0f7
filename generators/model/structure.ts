// Structural check of a spec with ajv: types, allowed keys and values. Each ajv error becomes a
// problem naming its path and the fix written beside that place in the schema.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import { didYouMean, nearest, type SpecProblem } from './errors.js';
import { entitySpecSchema } from './schema.js';
import { withArticle } from '../names.js';

type Schema = { fix?: string; properties?: Record<string, Schema> } & Record<string, unknown>;

type Validate = ReturnType<Ajv['compile']>;
let validator: Validate | undefined;

/**
 * Where the build writes the spec schema's validator as code (ajv standalone), beside this module:
 * compiling the schema is a fifth of a one-entity run, and the schema only changes with slicekit.
 */
export const BUILT_VALIDATOR = fileURLToPath(new URL('./spec-validator.cjs', import.meta.url));

function specAjv(source: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, verbose: true, code: { source } });
  ajv.addKeyword({ keyword: 'fix', schemaType: 'string' });
  return ajv;
}

/** The source of a CommonJS module exporting the spec schema's validator (for the build). */
export async function specValidatorModule(): Promise<string> {
  // A CommonJS module: its default export is the function itself.
  const standalone = (await import('ajv/dist/standalone/index.js')).default as unknown as {
    default: (ajv: Ajv, validate: Validate) => string;
  };
  const ajv = specAjv(true);
  return standalone.default(ajv, ajv.compile(entitySpecSchema));
}

/** The spec schema compiled here, as the sources run. */
export const compiledValidator = (): Validate => specAjv(false).compile(entitySpecSchema);

/** The spec schema's validator: the build's, else compiled here (once). */
export function validate(): Validate {
  validator ??= existsSync(BUILT_VALIDATOR)
    ? (createRequire(import.meta.url)(BUILT_VALIDATOR) as Validate)
    : compiledValidator();
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
    case 'const': {
      const allowed = (params.allowedValues ?? [params.allowedValue]) as unknown[];
      return {
        path,
        message: `${shown(error.data)} is not allowed`,
        fix: `${didYouMean(String(error.data), allowed.map(String))}${fix}`,
      };
    }
    case 'type':
      return {
        path,
        message: `must be ${params.type === 'object' ? 'a mapping' : params.type === 'array' ? 'a list' : withArticle(String(params.type))}, not ${typeName(error.data)}`,
        fix,
      };
    case 'pattern':
      return { path, message: `${shown(error.data)} is not written as expected`, fix };
    case 'minItems':
    case 'minProperties':
    case 'minLength':
      return {
        path,
        message:
          params.limit === 1
            ? 'is empty'
            : `holds fewer than ${String(params.limit)} ${error.keyword === 'minLength' ? 'characters' : 'entries'}`,
        fix,
      };
    case 'uniqueItems': {
      const list = error.data as unknown[];
      return { path, message: `lists ${shown(list[Number(params.j)])} twice`, fix };
    }
    case 'minimum':
      return { path, message: `${shown(error.data)} is below ${String(params.limit)}`, fix };
    case 'maximum':
      return { path, message: `${shown(error.data)} is above ${String(params.limit)}`, fix };
    case 'oneOf':
    case 'anyOf':
      return { path, message: `${shown(error.data)} is none of the forms allowed here`, fix };
    default:
      // Never ajv's own words: the value and the fix written beside this place in the schema.
      return { path, message: `${shown(error.data)} is not accepted here`, fix };
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
    // Only the errors of this value: the same place in another field may pick another branch.
    errors = errors.filter(
      (e) =>
        e === oneOf ||
        (e.instancePath !== oneOf.instancePath &&
          !e.instancePath.startsWith(`${oneOf.instancePath}/`)) ||
        !e.schemaPath.startsWith(`${oneOf.schemaPath}/`) ||
        e.schemaPath.startsWith(keep),
    );
    if (branch >= 0) errors = errors.filter((e) => e !== oneOf);
  }
  // An anyOf place (a precondition's value) is reported once, as itself, not once per form.
  for (const anyOf of errors.filter((e) => e.keyword === 'anyOf')) {
    errors = errors.filter((e) => e === anyOf || !e.schemaPath.startsWith(`${anyOf.schemaPath}/`));
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

/** Keys a spec needs where they stand (a field's type, a method's name): never dropped. */
const NEEDED = new Set(['entity', 'fields', 'type', 'name', 'operation', 'set', 'key', 'rows']);

const unescape = (part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * The spec with each structural mistake set aside, when that is safe: a key that is not one is
 * dropped, a misspelled value takes the value it is likely meant as, an optional key that is
 * wrong is dropped. Then the meaning of the rest can be checked in the same round, so a spec's
 * mistakes are all reported at once. `around` holds the paths set aside: problems found under
 * them would be echoes of the structural ones. Undefined when a mistake cannot be set aside (a
 * missing key, a wrong list item).
 */
export function withoutStructuralProblems(
  spec: unknown,
): { spec: unknown; around: string[] } | undefined {
  const check = validate();
  const copy = structuredClone(spec) as Record<string, unknown>;
  const around: string[] = [];
  // A value set aside may show another mistake (a guess repeating a list's other item): again.
  for (let pass = 0; pass < 3; pass++) {
    if (check(copy)) return { spec: copy, around };
    if (!setAside(copy, check.errors ?? [], around)) return undefined;
  }
  return undefined;
}

/** Sets aside each of `errors` in `copy`; false when one cannot be set aside safely. */
function setAside(
  copy: Record<string, unknown>,
  errors: readonly ErrorObject[],
  around: string[],
): boolean {
  const at = (path: string[]) =>
    path.reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], copy) as
      Record<string, unknown> | undefined;
  for (const error of errors) {
    const parts = error.instancePath.split('/').slice(1).map(unescape);
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'additionalProperties') {
      delete at(parts)?.[String(params.additionalProperty)];
      continue;
    }
    const key = parts.at(-1);
    const parent = at(parts.slice(0, -1));
    if (key === undefined || typeof parent !== 'object' || parent === null) return false;
    if (error.keyword === 'enum') {
      const guess = nearest(String(error.data), (params.allowedValues as unknown[]).map(String));
      if (guess !== undefined) {
        parent[key] = guess;
        around.push(pathOf(error.instancePath));
        continue;
      }
    }
    if (Array.isArray(parent) || NEEDED.has(key)) return false;
    delete parent[key];
    around.push(pathOf(error.instancePath));
  }
  return true;
}
