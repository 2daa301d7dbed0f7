// The field-kind registry: every kind an entity spec may give a field, each with its column, JSON
// Schema, TypeScript type, value checks and sample values. The generator and the runtime read
// the same entries; adding a kind is one entry here (plus its docs row and tests).
import {
  DAY,
  decimalLimit,
  distinctText,
  EMAIL,
  INSTANT,
  INT32,
  matches,
  numberProblem,
  proposedNumber,
  proposedText,
  textLimits,
  textProblem,
  UUID,
} from './checks.js';
import type { FieldKindDefinition } from './kind.js';
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
