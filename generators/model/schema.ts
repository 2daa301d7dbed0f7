// The JSON Schema an entity spec file is checked against with ajv. `fix` is our own keyword: the
// hint printed with an error at that place.
import { accessSchema, ownedSchema } from './access.js';
import { FIELD_TYPES, IDEMPOTENT_OPS, ON_DELETE, VERBS } from './types.js';

const named = (pattern: string, fix: string) => ({ type: 'string', pattern, fix });
const uniqueFix =
  'use true for a field no two rows may share, { ignoreCase: true } to compare its text ignoring case, or leave it out';
const ignoreCase = { ignoreCase: { type: 'boolean', fix: 'use true or false' } };
const uniqueOptions = { type: 'object', additionalProperties: false, properties: ignoreCase };
const camel = named('^[a-z][A-Za-z0-9]*$', 'write it in camelCase, e.g. isDiscontinued');
const pascal = named('^[A-Z][A-Za-z0-9]*$', 'write it in PascalCase, e.g. ChangePrice');
const count = { type: 'integer', minimum: 0, fix: 'give a whole number of at least 0' };
const constraints = {
  required: { type: 'boolean', fix: 'use true or false' },
  minLength: count,
  maxLength: { type: 'integer', minimum: 1, fix: 'give a whole number of at least 1' },
  minimum: { type: 'number', fix: 'give a number' },
  maximum: { type: 'number', fix: 'give a number' },
  pattern: { type: 'string', fix: 'give a regular expression as a string' },
};
const fieldType = { enum: FIELD_TYPES, fix: `use one of ${FIELD_TYPES.join(', ')}` };
const values = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', minLength: 1 },
  fix: 'list the allowed values, e.g. [draft, live, retired]',
};
const decimalDigits = {
  precision: {
    type: 'integer',
    minimum: 1,
    maximum: 15,
    fix: 'give 1 to 15 (JSON numbers stay exact up to 15 digits)',
  },
  scale: { type: 'integer', minimum: 0, maximum: 15, fix: 'give 0 to 15, at most the precision' },
};

const param = {
  fix: 'give a field name, or { name, type } for a parameter that is not a field',
  oneOf: [
    camel,
    {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: { name: camel, type: fieldType, values, ...decimalDigits, ...constraints },
    },
  ],
};

/** A value a precondition allows: an enum value or a boolean. */
const conditionValue = [{ type: 'string' }, { type: 'boolean' }];

const method = {
  name: pascal,
  parameters: { type: 'array', items: param, fix: 'list the parameters, e.g. [price]' },
  effects: {
    type: 'array',
    fix: 'list effects such as { set: isDiscontinued, value: true }',
    items: {
      type: 'object',
      additionalProperties: false,
      fix: 'write { set: <field>, value: <literal> }, { set: <field>, from: <parameter> }, { set: <field>, now: true } or { increment: <field>, by: 1 }',
      properties: {
        set: camel,
        value: {},
        from: camel,
        now: { const: true, fix: 'write now: true' },
        increment: camel,
        decrement: camel,
        by: { type: 'number', fix: 'give a positive number, e.g. by: 1' },
      },
    },
  },
  when: {
    type: 'object',
    minProperties: 1,
    fix: 'write the fields the method needs, e.g. when: { status: draft } or { status: [draft, held] }',
    additionalProperties: {
      fix: 'give a value, or a list of the values allowed',
      anyOf: [
        ...conditionValue,
        { type: 'array', minItems: 1, uniqueItems: true, items: { anyOf: conditionValue } },
      ],
    },
  },
  description: { type: 'string' },
};

const names = {
  type: 'array',
  items: camel,
  uniqueItems: true,
  fix: 'list field names, e.g. [ownedBy]',
};

/** The structure of a spec file; meaning (references between keys) is checked in validate.ts. */
export const entitySpecSchema = {
  type: 'object',
  required: ['entity', 'fields'],
  additionalProperties: false,
  fix: 'a spec is a mapping with at least entity and fields',
  properties: {
    entity: { ...pascal, fix: 'write the entity name in PascalCase and singular, e.g. Product' },
    plural: pascal,
    table: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_]*$',
      fix: 'use snake_case, e.g. order_lines',
    },
    resource: {
      type: 'string',
      pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
      fix: 'use one kebab-case URL segment, e.g. order-lines',
    },
    audited: { type: 'boolean', fix: 'use true or false' },
    owned: ownedSchema,
    tenant: { type: 'boolean', fix: 'use true or false' },
    access: accessSchema,
    patch: { type: 'boolean', fix: 'use true or false' },
    softDelete: { type: 'boolean', fix: 'use true or false' },
    validate: { type: 'boolean', fix: 'use true or false' },
    searchIndex: { type: 'boolean', fix: 'use true or false' },
    description: { type: 'string' },
    fields: {
      type: 'object',
      minProperties: 1,
      fix: 'map each field name to { type: ... }, e.g. name: { type: string, required: true }',
      propertyNames: camel,
      additionalProperties: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        fix: 'give the field a type, e.g. { type: string }',
        properties: {
          type: fieldType,
          default: {},
          values,
          ...decimalDigits,
          ...constraints,
          description: { type: 'string' },
          examples: {
            type: 'array',
            minItems: 1,
            fix: 'list sample values the field may hold, e.g. examples: [9780140449136]',
          },
          renamedFrom: {
            ...camel,
            fix: 'name the field as it was before (camelCase), e.g. renamedFrom: title',
          },
          unique: { oneOf: [{ type: 'boolean', fix: uniqueFix }, uniqueOptions], fix: uniqueFix },
          sortable: {
            type: 'boolean',
            fix: 'use true for a field lists order by, or leave it out',
          },
          filterable: { type: 'boolean', fix: 'use true for a field lists filter by, or omit it' },
          entity: { ...pascal, fix: 'name the referenced entity in PascalCase, e.g. Customer' },
          onDelete: { enum: ON_DELETE, fix: `use ${ON_DELETE.join(', ')}` },
          many: { type: 'boolean', fix: 'use true for a many-to-many, or leave it out' },
          show: {
            ...names,
            fix: "list the referenced entity's fields to show, e.g. [name, email]",
          },
          inverse: { ...camel, fix: 'name the one-to-many on the other side, e.g. lines' },
          joinTable: {
            type: 'string',
            pattern: '^[a-z][a-z0-9_]*$',
            fix: 'use snake_case, e.g. order_tags',
          },
          sequence: {
            type: 'object',
            additionalProperties: false,
            fix: "write { format: 'T{DateTime:yyMMdd}{1:00000}', max: 99999 }",
            properties: {
              name: {
                type: 'string',
                pattern: '^[a-z_][a-z0-9_]{0,62}$',
                fix: 'use 1-63 lower-case letters, digits or _, e.g. ticket_numbers',
              },
              format: {
                type: 'string',
                minLength: 1,
                fix: "write the number as {1} or {1:00000}, e.g. 'T{DateTime:yyMMdd}{1:00000}'",
              },
              start: { type: 'integer', minimum: 1, fix: 'give a whole number of at least 1' },
              max: { type: 'integer', minimum: 1, fix: 'give a whole number of at least 1' },
              valueType: { enum: ['int', 'bigint'], fix: 'use int or bigint' },
            },
          },
        },
      },
    },
    create: {
      type: 'array',
      items: param,
      fix: 'list the fields the constructor takes, e.g. [name, price]',
    },
    updates: {
      type: 'array',
      fix: 'list update methods, e.g. - { name: ChangePrice, parameters: [price] }',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: method,
      },
    },
    actions: {
      type: 'array',
      fix: 'list actions, e.g. - { name: Discontinue, verb: PUT }',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          ...method,
          segment: {
            type: 'string',
            pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
            fix: 'use one kebab-case path segment, e.g. approval',
          },
          requestName: pascal,
          verb: { enum: VERBS, fix: `use ${VERBS.join(', ')} (actions cannot DELETE)` },
        },
      },
    },
    dto: {
      type: 'object',
      additionalProperties: false,
      fix: 'write { exclude: [...] } or { include: [...] }',
      properties: { include: names, exclude: names },
    },
    events: {
      type: 'array',
      fix: 'list events, e.g. - { operation: Created, fields: [id, name] }',
      items: {
        type: 'object',
        required: ['operation', 'fields'],
        additionalProperties: false,
        properties: {
          operation: {
            enum: ['Created', 'Updated', 'Deleted', 'Restored'],
            fix: 'use Created, Updated, Deleted or Restored',
          },
          fields: names,
          name: pascal,
        },
      },
    },
    idempotent: {
      type: 'array',
      uniqueItems: true,
      fix: `list operations, e.g. [Create, Action]`,
      items: { enum: IDEMPOTENT_OPS, fix: `use ${IDEMPOTENT_OPS.join(', ')}` },
    },
    collections: {
      type: 'object',
      fix: 'map each collection name to { entity: ..., show: [...] }, e.g. lines: { entity: OrderLine }',
      propertyNames: camel,
      additionalProperties: {
        type: 'object',
        required: ['entity'],
        additionalProperties: false,
        fix: 'write { entity: OrderLine, show: [sku, quantity] }',
        properties: {
          entity: { ...pascal, fix: 'name the entity whose rows it lists, e.g. OrderLine' },
          via: { ...camel, fix: "name that entity's reference field naming this one, e.g. order" },
          show: { ...names, fix: 'list the fields each element shows, e.g. [sku, quantity]' },
        },
      },
    },
    rules: {
      type: 'array',
      fix: 'list rules, e.g. [dueOn > loanedOn, extensions <= 2]',
      items: { type: 'string', fix: 'write a rule as text, e.g. dueOn > loanedOn' },
    },
    referenceData: {
      type: 'object',
      required: ['key', 'rows'],
      additionalProperties: false,
      fix: 'write { key: code, rows: [{ code: ..., name: ... }] }',
      properties: {
        key: {
          fix: 'name the field identifying a row, or list several',
          oneOf: [camel, { type: 'array', minItems: 1, uniqueItems: true, items: camel }],
        },
        rows: {
          type: 'array',
          minItems: 1,
          fix: 'list the rows, each a mapping of field names to values',
          items: { type: 'object', fix: 'write a row as a mapping of field names to values' },
        },
      },
    },
  },
} as const;
