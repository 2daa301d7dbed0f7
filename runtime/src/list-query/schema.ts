// Reads the JSON Schema of a DTO property into what the engine needs: its scalar type, or that it
// is an object, array, dictionary or byte array.
import type { JsonSchema } from '../sql/index.js';
import type { ScalarType } from './members.js';

export type { JsonSchema };

export type SchemaShape =
  | {
      shape: 'scalar';
      type: ScalarType;
      enumValues?: readonly (string | number)[];
    }
  | { shape: 'object'; properties: Record<string, JsonSchema> }
  | { shape: 'array'; items: JsonSchema }
  | { shape: 'dictionary' }
  | { shape: 'bytes' }
  | { shape: 'unknown'; why: string };

/** `{ anyOf: [X, { type: 'null' }] }` and `type: ['string', 'null']` both mean "X or null". */
function unwrapNullable(schema: JsonSchema): JsonSchema {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const nonNull = alternatives.filter((s) => s.type !== 'null');
    if (nonNull.length === 1 && nonNull[0])
      return { ...nonNull[0], ...withoutAlternatives(schema) };
  }
  return schema;
}

function withoutAlternatives(schema: JsonSchema): JsonSchema {
  const rest = { ...schema };
  delete rest.anyOf;
  delete rest.oneOf;
  return rest;
}

function mainType(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.enum) return typeof schema.enum[0] === 'number' ? 'number' : 'string';
  return undefined;
}

/** Whether the schema admits null (`type: [.., 'null']`, `nullable`, or a null alternative). */
export function isNullable(schema: JsonSchema): boolean {
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  if (schema.type === 'null') return true;
  return (schema.anyOf ?? schema.oneOf ?? []).some((s) => s.type === 'null');
}

/** Classifies one property schema. */
export function shapeOf(input: JsonSchema): SchemaShape {
  const schema = unwrapNullable(input);
  if (typeof schema.$ref === 'string') return { shape: 'unknown', why: '$ref is not resolved' };
  const type = mainType(schema);
  const enumValues = schema.enum?.filter(
    (v): v is string | number => typeof v === 'string' || typeof v === 'number',
  );
  switch (type) {
    case 'integer':
      return enumValues
        ? { shape: 'scalar', type: 'enum', enumValues }
        : { shape: 'scalar', type: 'integer' };
    case 'number':
      return enumValues
        ? { shape: 'scalar', type: 'enum', enumValues }
        : { shape: 'scalar', type: 'decimal' };
    case 'boolean':
      return { shape: 'scalar', type: 'boolean' };
    case 'string': {
      if (schema.format === 'byte' || schema.format === 'binary' || schema.contentEncoding) {
        return { shape: 'bytes' };
      }
      if (enumValues) return { shape: 'scalar', type: 'enum', enumValues };
      if (schema.format === 'uuid') return { shape: 'scalar', type: 'uuid' };
      if (schema.format === 'date-time') return { shape: 'scalar', type: 'date-time' };
      if (schema.format === 'date') return { shape: 'scalar', type: 'date' };
      return { shape: 'scalar', type: 'string' };
    }
    case 'object':
      if (schema.properties && Object.keys(schema.properties).length > 0) {
        return { shape: 'object', properties: schema.properties };
      }
      return { shape: 'dictionary' };
    case 'array':
      return { shape: 'array', items: schema.items ?? {} };
    default:
      return {
        shape: 'unknown',
        why: `type ${JSON.stringify(schema.type ?? null)} is not supported`,
      };
  }
}
