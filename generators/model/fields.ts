// Fields: per-type rules (which constraints a type takes, defaults that fit it) and the stored
// fields slicekit adds: id, ownedBy and the four audit fields.
import { nameForms, snakeCase } from '../names.js';
import type { SpecProblem } from './errors.js';
import type { FieldModel, FieldSpec, FieldType } from './types.js';

/** Names the generator gives a meaning of its own; a spec cannot declare them as fields. */
export const RESERVED: Record<string, string> = {
  id: 'every entity has a UUID id already; remove the field',
  ownedBy: 'set owned: true to get ownedBy, stamped with the creator',
  createdBy: 'audit fields come with audited: true',
  createdOn: 'audit fields come with audited: true',
  updatedBy: 'audit fields come with audited: true',
  updatedOn: 'audit fields come with audited: true',
  lastModifiedBy: 'it is computed from the audit fields; remove it',
  lastModifiedOn: 'it is computed from the audit fields; remove it',
  constructor: 'choose another name',
  prototype: 'choose another name',
};

const lengthTypes: readonly FieldType[] = ['string', 'text'];
const numberTypes: readonly FieldType[] = ['integer', 'decimal'];

export const DEFAULT_STRING_LENGTH = 255;
export const MAX_STRING_LENGTH = 10000;
export const DEFAULT_PRECISION = 12;
export const DEFAULT_SCALE = 2;

/** Problems of the constraints given for one field or parameter of type `type`. */
export function constraintProblems(
  path: string,
  type: FieldType,
  spec: Partial<FieldSpec>,
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const only = (key: keyof FieldSpec, types: readonly FieldType[], fix: string) => {
    if (spec[key] !== undefined && !types.includes(type)) {
      problems.push({ path: `${path}.${key}`, message: `does not apply to a ${type}`, fix });
    }
  };
  only('minLength', lengthTypes, 'remove it; it applies to string and text');
  only('maxLength', lengthTypes, 'remove it; it applies to string and text');
  only('pattern', lengthTypes, 'remove it; it applies to string and text');
  only('minimum', numberTypes, 'remove it; it applies to integer and decimal');
  only('maximum', numberTypes, 'remove it; it applies to integer and decimal');
  only('precision', ['decimal'], 'remove it; it applies to decimal');
  only('scale', ['decimal'], 'remove it; it applies to decimal');
  only('values', ['enum'], 'remove it, or make the type enum');
  if (type === 'enum' && !spec.values) {
    problems.push({
      path: `${path}.values`,
      message: 'is missing for an enum',
      fix: 'list the allowed values, e.g. values: [draft, live]',
    });
  }
  if (
    spec.minLength !== undefined &&
    spec.maxLength !== undefined &&
    spec.minLength > spec.maxLength
  ) {
    problems.push({
      path: `${path}.minLength`,
      message: 'is above maxLength',
      fix: 'make minLength at most maxLength',
    });
  }
  if (type === 'string' && (spec.maxLength ?? 0) > MAX_STRING_LENGTH) {
    problems.push({
      path: `${path}.maxLength`,
      message: `is above ${MAX_STRING_LENGTH}`,
      fix: 'use type text for long strings',
    });
  }
  if (spec.minimum !== undefined && spec.maximum !== undefined && spec.minimum > spec.maximum) {
    problems.push({
      path: `${path}.minimum`,
      message: 'is above maximum',
      fix: 'make minimum at most maximum',
    });
  }
  if ((spec.scale ?? DEFAULT_SCALE) > (spec.precision ?? DEFAULT_PRECISION)) {
    problems.push({
      path: `${path}.scale`,
      message: 'is above the precision',
      fix: 'make scale at most precision',
    });
  }
  if (
    type === 'integer' &&
    [spec.minimum, spec.maximum].some((v) => v !== undefined && !Number.isInteger(v))
  ) {
    problems.push({
      path: `${path}.minimum`,
      message: 'bounds of an integer must be whole numbers',
      fix: 'give whole numbers',
    });
  }
  if (spec.pattern !== undefined) {
    try {
      new RegExp(spec.pattern, 'u');
    } catch (error) {
      problems.push({
        path: `${path}.pattern`,
        message: `is not a regular expression (${(error as Error).message})`,
        fix: 'give a valid JavaScript regular expression',
      });
    }
  }
  return problems;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Why `value` cannot be stored in a field like `field`, or undefined when it can. */
export function valueProblem(
  field: Omit<FieldModel, 'name' | 'column' | 'role'>,
  value: unknown,
): string | undefined {
  if (value === null) return field.required ? 'null for a required field' : undefined;
  const text = typeof value === 'string' ? value : undefined;
  switch (field.type) {
    case 'string':
    case 'text':
      if (text === undefined) return 'not a string';
      if (field.maxLength !== undefined && text.length > field.maxLength)
        return 'longer than maxLength';
      if (field.minLength !== undefined && text.length < field.minLength)
        return 'shorter than minLength';
      if (field.pattern !== undefined && !new RegExp(field.pattern, 'u').test(text))
        return 'not matching the pattern';
      return undefined;
    case 'uuid':
      return text !== undefined && UUID.test(text) ? undefined : 'not a UUID';
    case 'date':
      return text !== undefined && DAY.test(text) ? undefined : 'not a date such as 2024-05-01';
    case 'date-time':
      return text !== undefined && INSTANT.test(text) && !Number.isNaN(Date.parse(text))
        ? undefined
        : 'not an ISO 8601 date-time such as 2024-05-01T10:00:00Z';
    case 'enum':
      return text !== undefined && field.values?.includes(text)
        ? undefined
        : `not one of ${field.values?.join(', ')}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'not true or false';
    case 'integer':
    case 'decimal': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'not a number';
      if (field.type === 'integer' && !Number.isInteger(value)) return 'not a whole number';
      if (field.minimum !== undefined && value < field.minimum) return 'below minimum';
      if (field.maximum !== undefined && value > field.maximum) return 'above maximum';
      const decimals = (String(value).split('.')[1] ?? '').length;
      if (field.type === 'decimal' && decimals > (field.scale ?? DEFAULT_SCALE))
        return 'more decimals than the scale keeps';
      return undefined;
    }
    case 'json':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : 'not a mapping';
  }
}

/** A spec field as a stored field. */
export function fieldModel(name: string, spec: FieldSpec): FieldModel {
  const hasDefault = spec.default !== undefined;
  return {
    name: nameForms(name),
    column: snakeCase(name),
    type: spec.type,
    role: 'field',
    required: spec.required ?? false,
    notNull: (spec.required ?? false) || (hasDefault && spec.default !== null),
    hasDefault,
    ...(hasDefault ? { default: spec.default } : {}),
    ...(spec.minLength !== undefined ? { minLength: spec.minLength } : {}),
    ...(spec.type === 'string'
      ? { maxLength: spec.maxLength ?? DEFAULT_STRING_LENGTH }
      : spec.maxLength !== undefined
        ? { maxLength: spec.maxLength }
        : {}),
    ...(spec.minimum !== undefined ? { minimum: spec.minimum } : {}),
    ...(spec.maximum !== undefined ? { maximum: spec.maximum } : {}),
    ...(spec.pattern !== undefined ? { pattern: spec.pattern } : {}),
    ...(spec.values ? { values: spec.values } : {}),
    ...(spec.type === 'decimal'
      ? { precision: spec.precision ?? DEFAULT_PRECISION, scale: spec.scale ?? DEFAULT_SCALE }
      : {}),
    ...(spec.description ? { description: spec.description } : {}),
  };
}

function builtIn(
  name: string,
  type: FieldType,
  role: FieldModel['role'],
  notNull: boolean,
  extra: Partial<FieldModel> = {},
): FieldModel {
  return {
    name: nameForms(name),
    column: snakeCase(name),
    type,
    role,
    required: notNull,
    notNull,
    hasDefault: false,
    ...extra,
  };
}

export const idField = (): FieldModel => builtIn('id', 'uuid', 'id', true);

export const ownerField = (): FieldModel =>
  builtIn('ownedBy', 'string', 'owner', true, {
    maxLength: DEFAULT_STRING_LENGTH,
    hasDefault: true,
    default: '',
  });

export const auditFields = (): FieldModel[] => [
  builtIn('createdBy', 'string', 'audit', true, {
    maxLength: DEFAULT_STRING_LENGTH,
    hasDefault: true,
    default: '',
  }),
  builtIn('createdOn', 'date-time', 'audit', true),
  builtIn('updatedBy', 'string', 'audit', true, {
    maxLength: DEFAULT_STRING_LENGTH,
    hasDefault: true,
    default: '',
  }),
  builtIn('updatedOn', 'date-time', 'audit', true),
];
