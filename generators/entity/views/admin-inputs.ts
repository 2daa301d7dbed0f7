// The inputs of the admin's forms and filters: an input per request property by its kind, and the
// request schema's rules (lengths, ranges, pattern, email) as React-Admin validators, so a form
// says what is wrong before it sends anything.
import { sentenceCase } from '../../names.js';
import type { EntityModel, FieldModel, FieldType, ParamModel } from '../../model/types.js';
import { literal } from '../literal.js';
import { requestSchema } from '../schemas.js';

/** A JSX element: `<NumberField source="price" label="Price" />`. */
export interface Element {
  tag: string;
  /** Attributes in order, each value as JSX writes it (`"price"`, `{false}`). */
  attrs: { name: string; value: string }[];
  /** Its child elements (a reference's autocomplete, a nested table's columns). */
  children?: Element[];
}

export const text = (value: string) => JSON.stringify(value);
export const attr = (name: string, value: string) => ({ name, value });

export function label(name: string): string {
  const words = sentenceCase(name);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The label of a reference field: `Customer` for `customerId`. */
export function fieldLabel(field: FieldModel): string {
  return label(field.reference ? field.reference.name.camel : field.name.camel);
}

/**
 * How a referenced row is named in a cell: by the fields the reference shows (`name`, then
 * `email` in parentheses), as a function of the row.
 */
export function shownRender(shown: FieldModel[]): string | undefined {
  const [first, ...rest] = shown.map((f) => f.name.camel);
  if (!first) return undefined;
  const more = rest.length
    ? ` + \` (\${[${rest.map((f) => `row.${f}`).join(', ')}].join(', ')})\``
    : '';
  return `{(row) => String(row.${first} ?? row.id)${more}}`;
}

/** How an autocomplete names a referenced row: its one shown field, or all of them. */
export function optionText(shown: FieldModel[]): string | undefined {
  if (shown.length === 1) return text(shown[0]!.name.camel);
  return shownRender(shown);
}

const INPUT_TAGS: Partial<Record<FieldType, string>> = {
  integer: 'NumberInput',
  decimal: 'NumberInput',
  boolean: 'BooleanInput',
  date: 'DateInput',
  'date-time': 'DateTimeInput',
  enum: 'SelectInput',
};

type Param = Pick<ParamModel, 'name' | 'type' | 'required' | 'values' | 'field'> &
  Partial<ParamModel>;

/**
 * The validators of a request property, from its request schema: `required()`, `maxLength(100)`,
 * `minValue(0.01)`, `regex(...)`, `email()`. Each is the `validate` attribute's element.
 */
export function validators(param: Param): string[] {
  const schema = (requestSchema([param as ParamModel]).properties as Record<string, Schema>)[
    param.name.camel
  ]!;
  const found: string[] = param.required ? ['required()'] : [];
  if (schema.type === 'array') return found;
  // A required text's minLength of 1 is what required() says already.
  if (schema.minLength !== undefined && !(param.required && schema.minLength === 1))
    found.push(`minLength(${schema.minLength})`);
  if (schema.maxLength !== undefined) found.push(`maxLength(${schema.maxLength})`);
  if (schema.minimum !== undefined) found.push(`minValue(${schema.minimum})`);
  if (schema.maximum !== undefined) found.push(`maxValue(${schema.maximum})`);
  if (schema.pattern !== undefined)
    found.push(
      `regex(new RegExp(${text(schema.pattern)}, 'u'), ${text(`Must match ${schema.pattern}`)})`,
    );
  if (schema.format === 'email') found.push('email()');
  return found;
}

interface Schema {
  type?: string | string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
}

function validate(found: string[]) {
  if (found.length === 0) return [];
  return [attr('validate', found.length === 1 ? `{${found[0]}}` : `{[${found.join(', ')}]}`)];
}

/** The input of a request property (a parameter, or a field as a filter). */
export function input(
  model: EntityModel,
  param: Param,
  options: { filter?: boolean } = {},
): Element {
  const name = param.name.camel;
  const field = param.field;
  const named = attr('label', text(field ? fieldLabel(field) : label(name)));
  const rules = options.filter ? [] : validate(validators(param));
  const reference = field?.reference
    ? [...(model.relations?.references ?? []), ...(model.relations?.links ?? [])].find(
        (r) => r.field.name.camel === field.name.camel,
      )
    : undefined;
  if (reference) {
    const many = field!.reference!.many;
    const shown = optionText(reference.show);
    return {
      tag: many ? 'ReferenceArrayInput' : 'ReferenceInput',
      attrs: [
        ...(options.filter ? [attr('key', text(name))] : []),
        attr('source', text(name)),
        attr('reference', text(reference.target.resource)),
      ],
      children: [
        {
          tag: many ? 'AutocompleteArrayInput' : 'AutocompleteInput',
          attrs: [
            named,
            ...(shown ? [attr('optionText', shown)] : []),
            ...(options.filter ? [] : validate(param.required ? ['required()'] : [])),
          ],
        },
      ],
    };
  }
  const type = param.type;
  const dated = type === 'date' || type === 'date-time';
  // A filter on text matches a part of it; on a date, that day or later.
  const tag = options.filter && dated ? 'DateInput' : (INPUT_TAGS[type] ?? 'TextInput');
  const source = !options.filter
    ? name
    : dated
      ? `${name}:GreaterThanOrEqual`
      : tag === 'TextInput' && ['string', 'text', 'email', 'url'].includes(type)
        ? `${name}:Contains`
        : name;
  return {
    tag,
    attrs: [
      ...(options.filter ? [attr('key', text(source))] : []),
      attr('source', text(source)),
      options.filter && dated ? attr('label', text(`${named.value.slice(1, -1)} or after`)) : named,
      ...(type === 'enum'
        ? [attr('choices', `{${literal((param.values ?? []).map((v) => ({ id: v, name: v })))}}`)]
        : []),
      ...(type === 'text' && !options.filter ? [attr('multiline', '{true}')] : []),
      ...(type === 'email' ? [attr('type', '"email"')] : []),
      ...(type === 'url' ? [attr('type', '"url"')] : []),
      ...(type === 'integer' ? [attr('step', '{1}')] : []),
      ...rules,
    ],
  };
}

/**
 * The filters by a related row's shown field: the orders by their customer's name
 * (`customer.name:Contains`), one per reference showing a text field.
 */
export function relatedFilters(model: EntityModel): Element[] {
  return (model.relations?.references ?? []).flatMap((r) => {
    const shown = r.show.find((f) => ['string', 'text', 'email'].includes(f.type));
    if (!shown) return [];
    const source = `${r.field.reference!.name.camel}.${shown.name.camel}:Contains`;
    return [
      {
        tag: 'TextInput',
        attrs: [
          attr('key', text(source)),
          attr('source', text(source)),
          attr('label', text(`${fieldLabel(r.field)} ${sentenceCase(shown.name.camel)}`)),
        ],
      },
    ];
  });
}
