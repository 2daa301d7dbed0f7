// JSON Schemas and TypeScript types of the generated DTO and requests, from the resolved model:
// each field or parameter's type and constraints, written the way ajv evaluates them.
import type { FieldModel, FieldType, ParamModel } from '../model/types.js';

type Typed = Pick<
  FieldModel,
  | 'type'
  | 'minLength'
  | 'maxLength'
  | 'minimum'
  | 'maximum'
  | 'pattern'
  | 'values'
  | 'precision'
  | 'scale'
>;

const INT32 = { min: -2147483648, max: 2147483647 };

/** The largest value `decimal(precision, scale)` holds: 9999999999.99 for (12, 2). */
function decimalLimit(precision: number, scale: number): number {
  const whole = '9'.repeat(Math.max(precision - scale, 1));
  return Number(scale > 0 ? `${whole}.${'9'.repeat(scale)}` : whole);
}

/** The JSON Schema of a value of `type`; `nullable` adds `null` to the type. */
export function valueSchema(
  typed: Typed,
  nullable: boolean,
  forRequest: boolean,
): Record<string, unknown> {
  const withNull = (type: string) => (nullable ? [type, 'null'] : type);
  const s: Record<string, unknown> = {};
  switch (typed.type) {
    case 'string':
    case 'text':
      s.type = withNull('string');
      if (typed.minLength !== undefined) s.minLength = typed.minLength;
      if (typed.maxLength !== undefined) s.maxLength = typed.maxLength;
      if (typed.pattern !== undefined) s.pattern = typed.pattern;
      break;
    case 'uuid':
      Object.assign(s, { type: withNull('string'), format: 'uuid' });
      break;
    case 'date':
      Object.assign(s, { type: withNull('string'), format: 'date' });
      break;
    case 'date-time':
      Object.assign(s, { type: withNull('string'), format: 'date-time' });
      break;
    case 'enum':
      s.type = withNull('string');
      s.enum = nullable ? [...(typed.values ?? []), null] : typed.values;
      break;
    case 'boolean':
      s.type = withNull('boolean');
      break;
    case 'integer':
      s.type = withNull('integer');
      if (typed.minimum !== undefined || forRequest) s.minimum = typed.minimum ?? INT32.min;
      if (typed.maximum !== undefined || forRequest) s.maximum = typed.maximum ?? INT32.max;
      break;
    case 'decimal': {
      s.type = withNull('number');
      const limit = decimalLimit(typed.precision ?? 12, typed.scale ?? 2);
      // Requests are held to what the column keeps, so the database never rounds or overflows.
      if (typed.minimum !== undefined || forRequest) s.minimum = typed.minimum ?? -limit;
      if (typed.maximum !== undefined || forRequest) s.maximum = typed.maximum ?? limit;
      if (forRequest) s['x-decimal-places'] = typed.scale ?? 2;
      break;
    }
    case 'json':
      s.type = withNull('object');
      break;
  }
  return s;
}

/** The request body schema of a list of parameters. */
export function requestSchema(params: readonly ParamModel[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const p of params) {
    // Like DataAnnotations' [Required], a required string may not be empty.
    const typed =
      p.required && (p.type === 'string' || p.type === 'text') && p.minLength === undefined
        ? { ...p, minLength: 1 }
        : p;
    properties[p.name.camel] = valueSchema(typed, !p.required, true);
  }
  const required = params.filter((p) => p.required).map((p) => p.name.camel);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** The DTO schema: every DTO property, all present in every response. */
export function dtoSchema(fields: readonly FieldModel[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of fields) {
    // Constraints belong to requests; a DTO only says what type each property has.
    const { type, format, enum: values } = valueSchema(f, !f.notNull, false);
    properties[f.name.camel] = {
      type,
      ...(format ? { format } : {}),
      ...(values ? { enum: values } : {}),
    };
  }
  return {
    type: 'object',
    properties,
    required: fields.map((f) => f.name.camel),
    additionalProperties: false,
  };
}

const tsTypes: Record<FieldType, string> = {
  string: 'string',
  text: 'string',
  integer: 'number',
  decimal: 'number',
  boolean: 'boolean',
  uuid: 'string',
  date: 'string',
  'date-time': 'string',
  enum: 'string',
  json: 'Record<string, unknown>',
};

/** The TypeScript type of a value in JSON (requests and DTOs). */
export function jsonType(typed: Pick<FieldModel, 'type' | 'values'>, nullable: boolean): string {
  const base =
    typed.type === 'enum' && typed.values
      ? typed.values.map((v) => `'${v.replace(/'/g, "\\'")}'`).join(' | ')
      : tsTypes[typed.type];
  return nullable ? `${base} | null` : base;
}

/** The TypeScript type of a value on the entity: date-times are `Date`s there. */
export function entityType(typed: Pick<FieldModel, 'type' | 'values'>, nullable: boolean): string {
  if (typed.type === 'date-time') return nullable ? 'Date | null' : 'Date';
  return jsonType(typed, nullable);
}
