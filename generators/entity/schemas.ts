// JSON Schemas and TypeScript types of the generated DTO and requests, from the resolved model:
// each field or parameter's type and constraints, written the way ajv evaluates them.
import { NOT_BLANK } from '@slicekit/runtime/fields';
import { fieldKinds } from '@slicekit/runtime/fields';
import type { FieldModel, ParamModel } from '../model/types.js';

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

/** Most ids a many-to-many request property may list. */
export const MAX_LINKED_IDS = 100;

/** Whether a field, or the field a parameter sets, is a many-to-many (an id list). */
export function isMany(typed: object): boolean {
  const t = typed as Partial<Pick<FieldModel, 'reference'>> & { field?: FieldModel };
  return (t.reference ?? t.field?.reference)?.many === true;
}

/** The JSON Schema of a value of `typed`'s kind; `nullable` adds `null` to the type. */
export function valueSchema(
  typed: Typed,
  nullable: boolean,
  forRequest: boolean,
): Record<string, unknown> {
  const item = fieldKinds[typed.type].schema(typed, forRequest);
  const schema: Record<string, unknown> = isMany(typed)
    ? {
        type: 'array',
        items: item,
        ...(forRequest ? { uniqueItems: true, maxItems: MAX_LINKED_IDS } : {}),
      }
    : { ...item };
  if (nullable) {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
  }
  return schema;
}

/**
 * The request body schema of a list of parameters. A property it does not list is refused
 * (`additionalProperties: false`), so a misspelled optional property is a 400 naming it rather
 * than a value silently dropped.
 */
export function requestSchema(params: readonly ParamModel[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const p of params) {
    const text = p.required && fieldKinds[p.type].value === 'string' && !isMany(p);
    // Like DataAnnotations' [Required], a required string may not be empty.
    const typed = text && p.minLength === undefined ? { ...p, minLength: 1 } : p;
    const schema = valueSchema(typed, !p.required, true);
    // Nor blank ("   "), unless its format already refuses white space (email, url, uuid...).
    if (text && schema.format === undefined) schema[NOT_BLANK] = true;
    // A required many-to-many names at least one row.
    if (p.required && isMany(p)) schema.minItems = 1;
    properties[p.name.camel] = schema;
  }
  const required = params.filter((p) => p.required).map((p) => p.name.camel);
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
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

/** The TypeScript type of a value in JSON (requests and DTOs). */
export function jsonType(typed: Pick<FieldModel, 'type' | 'values'>, nullable: boolean): string {
  const one = fieldKinds[typed.type].jsonType(typed);
  const base = isMany(typed) ? `${one}[]` : one;
  return nullable ? `${base} | null` : base;
}

/** The TypeScript type of a value on the entity: date-times are `Date`s there. */
export function entityType(typed: Pick<FieldModel, 'type' | 'values'>, nullable: boolean): string {
  const kind = fieldKinds[typed.type];
  if (!kind.entityType || isMany(typed)) return jsonType(typed, nullable);
  const base = kind.entityType(typed);
  return nullable ? `${base} | null` : base;
}
