// The list route's query parameters and `Prefer` header, with the list-query engine's limits as
// schema constraints.
import type { JsonSchemaObject, ListDescription } from './types.js';

/** DTO property names of an object schema. */
function dtoFields(dto: JsonSchemaObject): string[] {
  const properties = dto.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** What `select` accepts: each DTO property, and `parent.member` for nested objects' members. */
function selectableFields(dto: JsonSchemaObject): string[] {
  const properties = (dto.properties ?? {}) as Record<string, JsonSchemaObject>;
  return Object.entries(properties).flatMap(([name, schema]) => {
    const items = schema.items as JsonSchemaObject | undefined;
    const nested = (schema.properties ?? items?.properties) as Record<string, unknown> | undefined;
    return [name, ...Object.keys(nested ?? {}).map((member) => `${name}.${member}`)];
  });
}

/**
 * What `orderBy` accepts unless the list says: each scalar DTO property, and `parent.member` for
 * the scalar members of a nested object (a reference's shown fields); never a nested object, a
 * collection or a JSON value as a whole, which the list-query engine refuses to order by.
 */
function orderableFields(dto: JsonSchemaObject): string[] {
  const properties = (dto.properties ?? {}) as Record<string, JsonSchemaObject>;
  const scalar = (schema: JsonSchemaObject) => {
    const types = ([] as unknown[]).concat(schema.type ?? []);
    return schema.items === undefined && !types.includes('object') && !types.includes('array');
  };
  return Object.entries(properties).flatMap(([name, schema]) => {
    const nested = schema.properties as Record<string, JsonSchemaObject> | undefined;
    if (nested && schema.items === undefined) {
      return Object.entries(nested).flatMap(([member, m]) =>
        scalar(m) ? [`${name}.${member}`] : [],
      );
    }
    return scalar(schema) ? [name] : [];
  });
}

export function listParameters(dto: JsonSchemaObject, list: ListDescription): JsonSchemaObject[] {
  const fields = dtoFields(dto);
  const sortable = [...(list.sortable ?? orderableFields(dto))];
  const filterable = [...(list.filterable ?? fields)];
  const maxPageSize = list.maxPageSize ?? 100;
  const parameters: JsonSchemaObject[] = [
    {
      name: 'pageNumber',
      in: 'query',
      description:
        '1-based page number; values below 1 are read as 1. Deep pages of a large list cost ' +
        'more with every page: follow `nextCursor` instead.',
      schema: { type: 'integer', default: 1 },
    },
    {
      name: 'pageSize',
      in: 'query',
      description: `Rows per page; below 1 means ${list.defaultPageSize ?? 20}, above ${maxPageSize} is read as ${maxPageSize}.`,
      schema: { type: 'integer', default: list.defaultPageSize ?? 20 },
    },
  ];
  if (filterable.length > 0) {
    parameters.push({
      name: 'filter',
      in: 'query',
      description:
        'Repeatable `field:operation:value` conditions, ANDed. Operations: Equal, NotEqual, ' +
        'GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual, Contains, NotContains, ' +
        'StartsWith, EndsWith, In, NotIn (comma-separated values), IsNull, IsNotNull (no value). ' +
        'An OR group is one filter: `or(price:LessThan:5|name:Contains:lamp)`, members separated ' +
        'by `|`, `and(...)` groups inside it (3 deep, 10 groups at most); in a group `\\` makes ' +
        'the next character literal (`\\|`, `\\(`, `\\)`, `\\\\`). At most ' +
        `${list.maxFilters ?? 20} conditions in all. Fields: ${filterable.join(', ')}.`,
      style: 'form',
      explode: true,
      schema: {
        type: 'array',
        maxItems: list.maxFilters ?? 20,
        items: {
          type: 'string',
          pattern: '^(?:[A-Za-z]+ *\\(.*\\) *|[^:()]+:[A-Za-z]+(:.*)?)$',
        },
      },
    });
  }
  if (list.deleted) {
    parameters.push({
      name: 'deleted',
      in: 'query',
      description:
        'Soft-deleted rows: `exclude` (the default) lists live rows only, `include` every row, ' +
        '`only` the deleted ones; only for callers who may restore (403 otherwise).',
      schema: { type: 'string', enum: ['exclude', 'include', 'only'], default: 'exclude' },
    });
  }
  if (list.searchable ?? true) {
    parameters.push({
      name: 'search',
      in: 'query',
      description: 'Free text matched as a substring of every string field, case-insensitively.',
      schema: { type: 'string', minLength: list.minSearchLength ?? 2 },
    });
  }
  if (sortable.length > 0) {
    parameters.push(
      {
        name: 'orderBy',
        in: 'query',
        description: "One DTO field, or a nested member's (`customer.name`); the id breaks ties.",
        schema: { type: 'string', enum: sortable },
      },
      {
        name: 'desc',
        in: 'query',
        description: 'Reverses the `orderBy` direction.',
        schema: { type: 'boolean', default: false },
      },
    );
  }
  parameters.push(
    {
      name: 'cursor',
      in: 'query',
      description:
        'The `nextCursor` or `previousCursor` of a page: the page after or before it, as cheap ' +
        'at any depth. Send it with the same filter, search, orderBy, desc and select as that ' +
        'page, ' +
        'and without pageNumber; any other cursor is a 400 (list_query.cursor_invalid).',
      schema: { type: 'string' },
    },
    {
      name: 'select',
      in: 'query',
      description:
        'Comma-separated DTO members each item carries, `parent.member` for one member of a ' +
        'nested object (or of a collection of objects); the others are left out of the items. ' +
        'A `cursor` is sent back with the same select.',
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: selectableFields(dto) } },
    },
    {
      name: 'Prefer',
      in: 'header',
      description:
        'count=exact, count=estimated or count=none: how totalItemCount is counted ' +
        '(RFC 7240; the response names the one applied in Preference-Applied). An exact count ' +
        "reads at most the list's exactCountMax rows (100,000 by default); past it the answer " +
        'is the estimate, with Preference-Applied: count=estimated.',
      schema: { type: 'string', example: 'count=none' },
    },
  );
  return parameters;
}

/** The `Preference-Applied` header of a list response. */
export const PREFERENCE_APPLIED: JsonSchemaObject = {
  description: 'The count preference applied, e.g. count=estimated (only when one was asked for).',
  schema: { type: 'string' },
};
