// Fields: per-type rules (which constraints a type takes, defaults that fit it) and the stored
// fields slicekit adds: id, ownedBy and the four audit fields.
import { nameForms, snakeCase, withArticle } from '../names.js';
import type { SpecProblem } from './errors.js';
import {
  FIELD_KINDS,
  fieldDefaults,
  fieldKinds,
  type ConstraintKey,
} from '@slicekit/runtime/fields';
import type { FieldModel, FieldSpec, FieldType } from './types.js';

/** Names the generator gives a meaning of its own; a spec cannot declare them as fields. */
export const RESERVED: Record<string, string> = {
  id: 'every entity has a UUID id already; remove the field',
  ownedBy: 'set owned: true to get ownedBy, stamped with the creator',
  tenantId: "set tenant: true to get tenantId, stamped with the caller's tenant",
  createdBy: 'audit fields come with audited: true',
  createdOn: 'audit fields come with audited: true',
  updatedBy: 'audit fields come with audited: true',
  updatedOn: 'audit fields come with audited: true',
  constructor: 'choose another name',
  prototype: 'choose another name',
};

export const DEFAULT_STRING_LENGTH = fieldDefaults.maxLength;
export const MAX_STRING_LENGTH = 10000;
export const DEFAULT_PRECISION = fieldDefaults.precision;
export const DEFAULT_SCALE = fieldDefaults.scale;

/** `string and text`: the kinds that take constraint `key`, for messages. */
function kindsTaking(key: ConstraintKey): string {
  const kinds = FIELD_KINDS.filter((k) => fieldKinds[k].constraints.some((c) => c === key));
  return kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}` : kinds.join('');
}

/** Problems of the constraints given for one field or parameter of type `type`. */
export function constraintProblems(
  path: string,
  type: FieldType,
  spec: Partial<FieldSpec>,
): SpecProblem[] {
  const problems: SpecProblem[] = [];
  // Each kind lists the constraints it takes (the runtime's field-kind registry).
  const taken: readonly ConstraintKey[] = fieldKinds[type]?.constraints ?? [];
  for (const key of CONSTRAINT_KEYS) {
    if (spec[key] !== undefined && !taken.includes(key)) {
      problems.push({
        path: `${path}.${key}`,
        message: `does not apply to ${withArticle(type)}`,
        fix:
          key === 'values'
            ? 'remove it, or make the type enum'
            : `remove it; it applies to ${kindsTaking(key)}`,
      });
    }
  }
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

/** Why `value` cannot be stored in a field like `field`, or undefined when it can. */
export function valueProblem(
  field: Omit<FieldModel, 'name' | 'column' | 'role'>,
  value: unknown,
): string | undefined {
  if (value === null) return field.required ? 'null for a required field' : undefined;
  return fieldKinds[field.type].problem(value, field);
}

/** The list indexes a spec field asks for, as model keys. */
export function listIndexes(spec: Pick<FieldSpec, 'sortable' | 'filterable'>) {
  return {
    ...(spec.sortable ? { sortable: true } : {}),
    ...(spec.filterable ? { filterable: true } : {}),
  };
}

/**
 * `unique`: `true` compares exactly but for an email, which ignores case (mail systems treat
 * `Ana@example.com` and `ana@example.com` as one mailbox); `{ ignoreCase }` says which.
 */
function uniqueness(spec: FieldSpec): { unique?: true; ignoreCase?: true } {
  if (spec.unique === undefined || spec.unique === false) return {};
  const ignoreCase =
    typeof spec.unique === 'object' ? (spec.unique.ignoreCase ?? false) : spec.type === 'email';
  return { unique: true, ...(ignoreCase ? { ignoreCase: true } : {}) };
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
    ...withKindDefaults(spec),
    ...(spec.description ? { description: spec.description } : {}),
    ...uniqueness(spec),
    ...listIndexes(spec),
    ...(spec.examples ? { examples: spec.examples } : {}),
  };
}

/**
 * The problems of a field's `examples`: each must be a value a request may set (its kind, lengths,
 * pattern, bounds), and a unique field's examples must differ (ignoring case where its index does).
 */
export function exampleProblems(path: string, field: FieldModel): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const seen = new Set<string>();
  (field.examples ?? []).forEach((example, i) => {
    // A request refuses blank text for a required field (schemas.ts), so its examples may not be.
    const blank = field.required && typeof example === 'string' && !/\S/u.test(example);
    const why =
      example === null
        ? 'null'
        : (fieldKinds[field.type].problem(example, field) ??
          (blank ? 'blank for a required field' : undefined));
    if (why) {
      problems.push({
        path: `${path}.examples[${i}]`,
        message: `${JSON.stringify(example)} is ${why}`,
        fix: `give examples a request may set for ${field.name.camel}, or fix its rules`,
      });
    }
    const key =
      typeof example === 'string' && field.ignoreCase
        ? example.toLowerCase()
        : JSON.stringify(example);
    if (field.unique && seen.has(key)) {
      problems.push({
        path: `${path}.examples[${i}]`,
        message: `${JSON.stringify(example)} is given twice for a unique field`,
        fix: `give distinct examples${field.ignoreCase ? ' (case is ignored)' : ''}`,
      });
    }
    seen.add(key);
  });
  return problems;
}

const CONSTRAINT_KEYS: readonly ConstraintKey[] = [
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'precision',
  'scale',
  'values',
];

/** The constraints a spec gives, over the defaults its kind has (a string's 255 characters). */
export function withKindDefaults(
  spec: Partial<FieldSpec> & { type: FieldType },
): Partial<FieldModel> {
  const out: Record<string, unknown> = { ...fieldKinds[spec.type].defaults };
  for (const key of CONSTRAINT_KEYS) if (spec[key] !== undefined) out[key] = spec[key];
  return out as Partial<FieldModel>;
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

/** The tenant of a row, stamped from the caller's token; never in the DTO. */
export const tenantField = (): FieldModel =>
  builtIn('tenantId', 'string', 'tenant', true, { maxLength: DEFAULT_STRING_LENGTH });
/**
 * The marks of a soft-deleted row (`softDelete`): when, by whom, and the delete that took it with
 * its cascade; all null while the row is live.
 */
export const deletionFields = (): FieldModel[] => [
  builtIn('deletedOn', 'date-time', 'deletion', false),
  builtIn('deletedBy', 'string', 'deletion', false, { maxLength: DEFAULT_STRING_LENGTH }),
  builtIn('deletionId', 'uuid', 'deletion', false),
];

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
