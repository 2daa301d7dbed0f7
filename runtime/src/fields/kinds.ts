// The field-kind registry: every kind an entity spec may give a field, each with its column, JSON
// Schema, TypeScript type, value checks and sample values. The generator and the runtime read
// the same entries; adding a kind is one entry here (plus its docs row and tests).
import type { JsonSchema } from '../sql/json-schema.js';
import type { FieldConstraints, FieldKindDefinition, SampleContext } from './kind.js';
import {
  clamp,
  decimals,
  fitLength,
  integers,
  sampleEmail,
  sampleText,
  sampleUrl,
  stableUuid,
} from './samples.js';

/** The limits a field has when its spec gives none. */
export const fieldDefaults = { maxLength: 255, precision: 12, scale: 2 } as const;

const INT32 = { min: -2147483648, max: 2147483647 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The largest value `decimal(precision, scale)` holds: 9999999999.99 for (12, 2). */
function decimalLimit(precision: number, scale: number): number {
  const whole = '9'.repeat(Math.max(precision - scale, 1));
  return Number(scale > 0 ? `${whole}.${'9'.repeat(scale)}` : whole);
}

/** The length and pattern keywords of a text value's schema. */
function textLimits(c: FieldConstraints): JsonSchema {
  return {
    ...(c.minLength !== undefined ? { minLength: c.minLength } : {}),
    ...(c.maxLength !== undefined ? { maxLength: c.maxLength } : {}),
    ...(c.pattern !== undefined ? { pattern: c.pattern } : {}),
  };
}

/** Why `value` is not text within the length and pattern constraints. */
function textProblem(value: unknown, c: FieldConstraints): string | undefined {
  if (typeof value !== 'string') return 'not a string';
  if (c.maxLength !== undefined && value.length > c.maxLength) return 'longer than maxLength';
  if (c.minLength !== undefined && value.length < c.minLength) return 'shorter than minLength';
  if (c.pattern !== undefined && !new RegExp(c.pattern, 'u').test(value)) {
    return 'not matching the pattern';
  }
  return undefined;
}

/** Why `value` is not a number within the minimum and maximum. */
function numberProblem(value: unknown, c: FieldConstraints): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'not a number';
  if (c.minimum !== undefined && value < c.minimum) return 'below minimum';
  if (c.maximum !== undefined && value > c.maximum) return 'above maximum';
  return undefined;
}

// The shape of an address `format: email` asks for, kept simple: one @, a dot in the domain.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const matches = (pattern: RegExp, message: string) => (value: unknown) =>
  typeof value === 'string' && pattern.test(value) ? undefined : message;

/** The proposed value when it is text, else undefined. */
const proposedText = (at: SampleContext): string | undefined =>
  typeof at.proposal === 'string' ? at.proposal : undefined;

/** The proposed value when it is a finite number, else undefined. */
const proposedNumber = (at: SampleContext): number | undefined =>
  typeof at.proposal === 'number' && Number.isFinite(at.proposal) ? at.proposal : undefined;

/**
 * A text value of row `index` no other row shares and no everyday code looks like (`X01`, `X02`...),
 * within the length constraints.
 */
function distinctText(c: FieldConstraints, index: number): string {
  const width = Math.min(c.maxLength ?? 8, Math.max(c.minLength ?? 0, 3));
  // Under three characters, the row's number in base 36: `1`, `2`... `Z`, `10`.
  if (width < 3) return (index + 1).toString(36).toUpperCase().padStart(width, '0');
  return `X${String(index + 1).padStart(width - 1, '0')}`;
}

const string = {
  value: 'string',
  constraints: ['minLength', 'maxLength', 'pattern'],
  defaults: { maxLength: fieldDefaults.maxLength },
  argument: 'maxLength',
  column: (c) => ({ method: 'string', args: [c.maxLength ?? fieldDefaults.maxLength] }),
  schema: (c) => ({ type: 'string', ...textLimits(c) }),
  jsonType: () => 'string',
  problem: textProblem,
  sample: (c, at) => {
    const proposal = proposedText(at);
    if (proposal !== undefined) return fitLength(proposal, c);
    return at.distinct ? distinctText(c, at.index) : fitLength(sampleText(at.name, at.index), c);
  },
  wrong: 12345,
} as const satisfies FieldKindDefinition;

const definitions = {
  string,
  text: {
    ...string,
    defaults: {},
    column: () => ({ method: 'text', args: [], literalDefault: false }),
    indexable: false,
  },
  email: {
    ...string,
    constraints: ['maxLength'],
    defaults: { maxLength: 320 },
    column: (c) => ({ method: 'string', args: [c.maxLength ?? 320] }),
    schema: (c) => ({ type: 'string', format: 'email', ...textLimits(c) }),
    problem: (value, c) =>
      textProblem(value, c) ?? (EMAIL.test(value as string) ? undefined : 'not an email address'),
    sample: (c, at) => fitLength(proposedText(at) ?? sampleEmail(at.index), c),
    wrong: 'not-an-email',
  },
  url: {
    ...string,
    constraints: ['maxLength'],
    defaults: { maxLength: 2048 },
    column: (c) => ({ method: 'string', args: [c.maxLength ?? 2048] }),
    schema: (c) => ({ type: 'string', format: 'uri', ...textLimits(c) }),
    problem: (value, c) => {
      const text = textProblem(value, c);
      if (text) return text;
      return URL.canParse(value as string) ? undefined : 'not an absolute URL';
    },
    sample: (c, at) => fitLength(proposedText(at) ?? sampleUrl(at.index), c),
    wrong: 'not a url',
  },
  integer: {
    value: 'integer',
    constraints: ['minimum', 'maximum'],
    column: () => ({ method: 'integer', args: [] }),
    // Requests are held to the 32-bit column, so the database never overflows.
    schema: (c, request) => ({
      type: 'integer',
      ...(c.minimum !== undefined || request ? { minimum: c.minimum ?? INT32.min } : {}),
      ...(c.maximum !== undefined || request ? { maximum: c.maximum ?? INT32.max } : {}),
    }),
    jsonType: () => 'number',
    problem: (value, c) =>
      numberProblem(value, c) ?? (Number.isInteger(value) ? undefined : 'not a whole number'),
    sample: (c, at) => {
      const own = at.distinct ? 9001 + at.index : integers[at.index % integers.length]!;
      return clamp(proposedNumber(at) ?? own, c, 0);
    },
    wrong: 'not-a-value',
  },
  decimal: {
    value: 'decimal',
    constraints: ['minimum', 'maximum', 'precision', 'scale'],
    defaults: { precision: fieldDefaults.precision, scale: fieldDefaults.scale },
    argument: 'precision',
    column: (c) => ({ method: 'decimal', args: [c.precision ?? 12, c.scale ?? 2] }),
    // Requests are held to what the column keeps, so the database never rounds or overflows.
    schema: (c, request) => {
      const limit = decimalLimit(c.precision ?? 12, c.scale ?? 2);
      return {
        type: 'number',
        ...(c.minimum !== undefined || request ? { minimum: c.minimum ?? -limit } : {}),
        ...(c.maximum !== undefined || request ? { maximum: c.maximum ?? limit } : {}),
        ...(request ? { 'x-decimal-places': c.scale ?? 2 } : {}),
      };
    },
    jsonType: () => 'number',
    problem: (value, c) => {
      const number = numberProblem(value, c);
      if (number) return number;
      const places = (String(value).split('.')[1] ?? '').length;
      return places > (c.scale ?? 2) ? 'more decimals than the scale keeps' : undefined;
    },
    sample: (c, at) => {
      const own = at.distinct ? 9001 + at.index : decimals[at.index % decimals.length]!;
      return clamp(proposedNumber(at) ?? own, c, c.scale ?? 2);
    },
    wrong: 'not-a-value',
  },
  boolean: {
    value: 'boolean',
    constraints: [],
    column: () => ({ method: 'boolean', args: [] }),
    schema: () => ({ type: 'boolean' }),
    jsonType: () => 'boolean',
    problem: (value) => (typeof value === 'boolean' ? undefined : 'not true or false'),
    sample: (_c, at) => {
      if (at.index === 0 && at.default !== undefined) return at.default;
      return typeof at.proposal === 'boolean' ? at.proposal : at.index % 3 === 2;
    },
    wrong: 'not-a-value',
  },
  uuid: {
    value: 'uuid',
    constraints: [],
    column: () => ({ method: 'uuid', args: [] }),
    schema: () => ({ type: 'string', format: 'uuid' }),
    jsonType: () => 'string',
    problem: matches(UUID, 'not a UUID'),
    sample: (_c, at) => stableUuid(`${at.seed}:${at.name}:${at.index}`),
    wrong: 12345,
  },
  // A row of another entity, by its id: a UUID column with a foreign key (the generator adds the
  // constraint, its onDelete and an index); a request carries the id, `customerId`.
  reference: {
    value: 'uuid',
    constraints: [],
    argument: 'entity',
    relation: true,
    column: () => ({ method: 'uuid', args: [] }),
    schema: () => ({ type: 'string', format: 'uuid' }),
    jsonType: () => 'string',
    problem: matches(UUID, 'not the UUID of a row'),
    sample: (_c, at) => stableUuid(`${at.seed}:${at.name}:${at.index}`),
    wrong: 12345,
  },
  date: {
    value: 'date',
    constraints: [],
    column: () => ({ method: 'date', args: [] }),
    schema: () => ({ type: 'string', format: 'date' }),
    jsonType: () => 'string',
    problem: matches(DAY, 'not a date such as 2024-05-01'),
    sample: (_c, at) => proposedText(at) ?? `2024-0${(at.index % 9) + 1}-1${at.index % 10}`,
    wrong: 12345,
  },
  'date-time': {
    value: 'date-time',
    constraints: [],
    column: () => ({ method: 'datetime', args: [{ precision: 3 }], literalDefault: false }),
    schema: () => ({ type: 'string', format: 'date-time' }),
    jsonType: () => 'string',
    entityType: () => 'Date',
    problem: (value) =>
      typeof value === 'string' && INSTANT.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'not an ISO 8601 date-time such as 2024-05-01T10:00:00Z',
    sample: (_c, at) =>
      proposedText(at) ?? `2024-0${(at.index % 9) + 1}-1${at.index % 10}T09:30:00.000Z`,
    wrong: 12345,
  },
  enum: {
    value: 'enum',
    constraints: ['values'],
    argument: 'values',
    column: (c) => ({ method: 'enu', args: [c.values ?? []] }),
    schema: (c) => ({ type: 'string', enum: c.values ?? [] }),
    jsonType: (c) => (c.values ?? []).map((v) => `'${v.replace(/'/g, "\\'")}'`).join(' | '),
    problem: (value, c) =>
      typeof value === 'string' && c.values?.includes(value)
        ? undefined
        : `not one of ${c.values?.join(', ')}`,
    sample: (c, at) => {
      const proposal = proposedText(at);
      if (at.index === 0 && typeof at.default === 'string') return at.default;
      if (proposal !== undefined && c.values?.includes(proposal)) return proposal;
      return c.values?.[at.index % c.values.length] ?? '';
    },
    wrong: 12345,
  },
  json: {
    value: 'json',
    constraints: [],
    column: () => ({ method: 'json', args: [], literalDefault: false }),
    indexable: false,
    schema: () => ({ type: 'object' }),
    jsonType: () => 'Record<string, unknown>',
    problem: (value) =>
      typeof value === 'object' && !Array.isArray(value) ? undefined : 'not a mapping',
    sample: (_c, at) =>
      typeof at.proposal === 'object' && at.proposal !== null && !Array.isArray(at.proposal)
        ? at.proposal
        : { note: sampleText('note', at.index) },
    wrong: 12345,
  },
} as const satisfies Record<string, FieldKindDefinition>;

/** The name of a field kind: `string`, `decimal`, `email`... */
export type FieldKind = keyof typeof definitions;

/**
 * Every field kind by name. `string` is VARCHAR (255 unless `maxLength` says otherwise), `text`
 * is unbounded TEXT, `email` and `url` are VARCHAR holding a checked address.
 */
export const fieldKinds: Readonly<Record<FieldKind, FieldKindDefinition>> = definitions;

/** Every kind's name, in registry order. */
export const FIELD_KINDS = Object.keys(fieldKinds) as FieldKind[];

/** The registry entry of `kind`. */
export function fieldKind(kind: FieldKind): FieldKindDefinition {
  return fieldKinds[kind];
}

/** Whether `name` names a kind of the registry. */
export function isFieldKind(name: unknown): name is FieldKind {
  return typeof name === 'string' && Object.hasOwn(fieldKinds, name);
}
