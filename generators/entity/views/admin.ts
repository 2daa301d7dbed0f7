// The view of admin/src/resources/<entity>.tsx: the entity's React-Admin pages. Each DTO field
// becomes a column (and a filter), each create parameter an input by its kind, the first update
// the edit form, the other updates and the actions buttons on the show page.
import { sentenceCase } from '../../names.js';
import type { EntityModel, FieldModel, FieldType, ParamModel } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { literal } from '../literal.js';

/** A JSX element with no children: `<NumberField source="price" label="Price" />`. */
export interface Element {
  tag: string;
  /** Attributes in order, each value as JSX writes it (`"price"`, `{false}`). */
  attrs: { name: string; value: string }[];
  /** One child element (a reference's autocomplete). */
  child?: Element;
}

export interface AdminMethod {
  label: string;
  segment: string;
  verb: string;
  /** `{ status: ['draft'] }` as TypeScript, or undefined. */
  when?: string;
  inputs: Element[];
}

export interface AdminView extends SliceBase {
  /** `ProductList`... prefix: `Product`. */
  component: string;
  imports: string[];
  columns: Element[];
  filters: Element[];
  createInputs: Element[];
  /** The edit form's inputs (the first update's parameters) and their names, or none. */
  edit?: { inputs: Element[]; fields: string; options: string };
  buttons: AdminMethod[];
  /** The field a row is shown by elsewhere (a reference's autocomplete): `name`, or `id`. */
  representation: string;
  /** The list's default order, as the API's: `{ field: 'createdOn', order: 'DESC' }`. */
  sortLiteral: string;
  requiresKeyLiteral: string;
}

const text = (value: string) => JSON.stringify(value);
const attr = (name: string, value: string) => ({ name, value });

function label(name: string): string {
  const words = sentenceCase(name);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The label of a reference field: `Customer` for `customerId`. */
function fieldLabel(field: FieldModel): string {
  return label(field.reference ? field.reference.name.camel : field.name.camel);
}

const FIELD_TAGS: Partial<Record<FieldType, string>> = {
  integer: 'NumberField',
  decimal: 'NumberField',
  boolean: 'BooleanField',
  date: 'DateField',
  'date-time': 'DateField',
  email: 'EmailField',
  url: 'UrlField',
};

function column(model: EntityModel, field: FieldModel): Element {
  const source = attr('source', text(field.name.camel));
  const named = attr('label', text(fieldLabel(field)));
  const reference = model.relations?.references.find(
    (r) => r.field.name.camel === field.name.camel,
  );
  if (reference) {
    const shown = reference.show[0]?.name.camel;
    return {
      tag: 'ReferenceField',
      attrs: [
        source,
        named,
        attr('reference', text(reference.target.resource)),
        ...(shown
          ? [attr('sortBy', text(`${reference.field.reference!.name.camel}.${shown}`))]
          : []),
      ],
    };
  }
  if (field.type === 'json') {
    return {
      tag: 'FunctionField',
      attrs: [
        source,
        named,
        attr('sortable', '{false}'),
        attr('render', `{(row) => JSON.stringify(row.${field.name.camel})}`),
      ],
    };
  }
  return {
    tag: FIELD_TAGS[field.type] ?? 'TextField',
    attrs: [source, named, ...(field.type === 'date-time' ? [attr('showTime', '')] : [])],
  };
}

const INPUT_TAGS: Partial<Record<FieldType, string>> = {
  integer: 'NumberInput',
  decimal: 'NumberInput',
  boolean: 'BooleanInput',
  date: 'DateInput',
  'date-time': 'DateTimeInput',
  enum: 'SelectInput',
};

/** The input of a request property (a parameter, or a field as a filter). */
function input(
  model: EntityModel,
  param: Pick<ParamModel, 'name' | 'type' | 'required' | 'values' | 'field'>,
  options: { filter?: boolean } = {},
): Element {
  const name = param.name.camel;
  const field = param.field;
  const named = attr('label', text(field ? fieldLabel(field) : label(name)));
  const validate = param.required && !options.filter ? [attr('validate', '{required()}')] : [];
  const reference = field?.reference
    ? [...(model.relations?.references ?? []), ...(model.relations?.links ?? [])].find(
        (r) => r.field.name.camel === field.name.camel,
      )
    : undefined;
  if (reference) {
    const many = field!.reference!.many;
    return {
      tag: many ? 'ReferenceArrayInput' : 'ReferenceInput',
      attrs: [attr('source', text(name)), attr('reference', text(reference.target.resource))],
      child: {
        tag: many ? 'AutocompleteArrayInput' : 'AutocompleteInput',
        attrs: [named, ...validate],
      },
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
      ...validate,
    ],
  };
}

function tagsOf(elements: Element[]): string[] {
  return elements.flatMap((e) => [e.tag, ...(e.child ? tagsOf([e.child]) : [])]);
}

export function adminView(model: EntityModel, base: SliceBase): AdminView {
  const columns = model.dto.map((f) => column(model, f));
  const filterable = model.dto.filter((f) => f.type !== 'json' && f.role !== 'id');
  const filters = filterable.map((f) =>
    input(
      model,
      { name: f.name, type: f.type, required: false, values: f.values, field: f },
      {
        filter: true,
      },
    ),
  );
  const createInputs = model.create.map((p) => input(model, p));
  const first = model.methods.find((m) => m.kind === 'update' && m.segment === '');
  const edit = first
    ? {
        inputs: first.params.map((p) => input(model, p)),
        fields: literal(first.params.map((p) => p.name.camel)),
        options: literal({ meta: { method: first.verb } }),
      }
    : undefined;
  const methods = model.methods
    .filter((m) => m !== first)
    .map((m) => ({
      label: label(m.name.camel),
      segment: m.segment,
      verb: m.verb,
      ...(m.when.length > 0
        ? {
            when: literal(Object.fromEntries(m.when.map((c) => [c.field.name.camel, c.values]))),
          }
        : {}),
      inputs: m.params.map((p) => input(model, p)),
    }));
  const representation =
    model.dto.find((f) => f.role === 'field' && f.type === 'string')?.name.camel ?? 'id';
  const used = [
    ...tagsOf(columns),
    ...tagsOf(filters),
    ...tagsOf(createInputs),
    ...tagsOf(edit?.inputs ?? []),
    ...tagsOf(methods.flatMap((m) => m.inputs)),
  ];
  const always = ['Create', 'Datagrid', 'DeleteButton', 'List', 'SearchInput', 'Show'];
  const needed = [
    ...always,
    'SimpleForm',
    'SimpleShowLayout',
    'TopToolbar',
    ...(edit ? ['Edit', 'EditButton'] : []),
    ...used,
    ...(used.some((t) => t.endsWith('Input')) &&
    [...createInputs, ...(edit?.inputs ?? []), ...methods.flatMap((m) => m.inputs)].some((e) =>
      [e, e.child].some((x) => x?.attrs.some((a) => a.name === 'validate')),
    )
      ? ['required']
      : []),
  ];
  return {
    ...base,
    component: model.name.pascal,
    imports: [...new Set(needed)].sort((a, b) => a.localeCompare(b)),
    columns,
    filters,
    createInputs,
    ...(edit ? { edit } : {}),
    buttons: methods,
    representation,
    sortLiteral: literal({ field: model.audited ? 'createdOn' : 'id', order: 'DESC' }),
    requiresKeyLiteral: literal(base.requiresKey),
  };
}
