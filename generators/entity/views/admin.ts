// The view of admin/src/resources/<entity>.tsx: the entity's React-Admin pages. Each DTO field
// becomes a column (and a filter), each create parameter an input by its kind, the first update
// the edit form (or the merge patch, when the spec has one), the other updates and the actions
// buttons on the show page, the collections and nested routes on the show page too.
import type { EntityModel, FieldModel, FieldType } from '../../model/types.js';
import type { SliceBase } from './base.js';
import { literal } from '../literal.js';
import { patchParams } from './patch.js';
import {
  attr,
  fieldLabel,
  input,
  label,
  shownRender,
  relatedFilters,
  text,
  type Element,
} from './admin-inputs.js';

export type { Element } from './admin-inputs.js';

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
  /** The show page's fields: the columns, then the collections as tables. */
  showFields: Element[];
  filters: Element[];
  createInputs: Element[];
  /** The edit form's inputs (the patch's fields, or the first update's parameters), or none. */
  edit?: { inputs: Element[]; fields: string; options: string; route: string };
  buttons: AdminMethod[];
  /** The field a row is shown by elsewhere (a reference's autocomplete): `name`, or `id`. */
  representation: string;
  /** The list's default order, as the API's: `{ field: 'createdOn', order: 'DESC' }`. */
  sortLiteral: string;
  requiresKeyLiteral: string;
  /** The resource's options: its label and where the API nests it under another's rows. */
  optionsLiteral: string;
  /** Deleted rows are kept: the list can show them, each with a Restore button. */
  softDelete: boolean;
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
      // Named by the fields the reference shows, as its autocomplete names it.
      ...(shown
        ? {
            children: [
              { tag: 'FunctionField', attrs: [attr('render', shownRender(reference.show)!)] },
            ],
          }
        : {}),
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

function tagsOf(elements: Element[]): string[] {
  return elements.flatMap((e) => [e.tag, ...tagsOf(e.children ?? [])]);
}

/** The validators the elements call (`required`, `maxLength`...), for the import. */
function validatorsOf(elements: Element[]): string[] {
  return elements.flatMap((e) => [
    ...e.attrs
      .filter((a) => a.name === 'validate')
      .flatMap((a) => [...a.value.matchAll(/\b([a-zA-Z]+)\(/g)].map((m) => m[1]!))
      .filter((name) => name !== 'RegExp'),
    ...validatorsOf(e.children ?? []),
  ]);
}

/** A many-to-many as chips of its shown field: the order's tags by name. */
function linkColumns(model: EntityModel): Element[] {
  return (model.relations?.links ?? []).map((l) => ({
    tag: 'ArrayField',
    attrs: [
      attr('source', text(l.field.reference!.name.camel)),
      attr('label', text(fieldLabel(l.field))),
      attr('sortable', '{false}'),
    ],
    children: [
      {
        tag: 'SingleFieldList',
        attrs: [attr('linkType', '{false}')],
        children: [
          {
            tag: 'ChipField',
            attrs: [attr('source', text(l.show[0]?.name.camel ?? 'id'))],
          },
        ],
      },
    ],
  }));
}

/** A one-to-many member as a table of its shown fields: the order's lines. */
function collectionTables(model: EntityModel): Element[] {
  return (model.relations?.collections ?? []).map((c) => ({
    tag: 'ArrayField',
    attrs: [attr('source', text(c.name.camel)), attr('label', text(label(c.name.camel)))],
    children: [
      {
        tag: 'Datagrid',
        attrs: [
          attr('bulkActionButtons', '{false}'),
          attr('rowClick', '{false}'),
          attr('empty', '{<span>None</span>}'),
        ],
        children: [
          { tag: 'TextField', attrs: [attr('source', '"id"'), attr('label', '"Id"')] },
          ...c.show.map((f) => column(model, f)),
        ],
      },
    ],
  }));
}

/** Where the API lists this entity's rows under another's (`/v1/customers/{id}/orders`). */
function nestedUnder(model: EntityModel): { parent: string; target: string; label: string }[] {
  return (model.relations?.references ?? []).map((r) => ({
    parent: r.target.resource,
    target: r.field.name.camel,
    label: label(r.field.reference!.inverse.camel),
  }));
}

/** The edit form: a merge patch of the create fields when the spec has one, else the first update. */
function editForm(model: EntityModel) {
  if (model.patch) {
    const params = patchParams(model);
    return {
      inputs: params.map((p) => input(model, p)),
      fields: literal(params.map((p) => p.name.camel)),
      options: literal({ meta: { method: 'PATCH' } }),
      route: 'merge patch (PATCH)',
    };
  }
  const first = model.methods.find((m) => m.kind === 'update' && m.segment === '');
  if (!first) return undefined;
  return {
    method: first,
    inputs: first.params.map((p) => input(model, p)),
    fields: literal(first.params.map((p) => p.name.camel)),
    options: literal({ meta: { method: first.verb } }),
    route: `update (${first.verb})`,
  };
}

export function adminView(model: EntityModel, base: SliceBase): AdminView {
  const columns = [...model.dto.map((f) => column(model, f)), ...linkColumns(model)];
  const showFields = [...columns, ...collectionTables(model)];
  const filterable = model.dto.filter((f) => f.type !== 'json' && f.role !== 'id');
  const filters = [
    ...filterable.map((f) =>
      input(
        model,
        { name: f.name, type: f.type, required: false, values: f.values, field: f },
        { filter: true },
      ),
    ),
    ...relatedFilters(model),
  ];
  const createInputs = model.create.map((p) => input(model, p));
  const form = editForm(model);
  const edit = form && {
    inputs: form.inputs,
    fields: form.fields,
    options: form.options,
    route: form.route,
  };
  const methods = model.methods
    .filter((m) => m !== form?.method)
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
  const forms = [...createInputs, ...(edit?.inputs ?? []), ...methods.flatMap((m) => m.inputs)];
  const used = [...tagsOf(showFields), ...tagsOf(filters), ...tagsOf(forms)];
  const always = ['Create', 'Datagrid', 'DeleteButton', 'List', 'SearchInput', 'Show'];
  const needed = [
    ...always,
    'SimpleForm',
    'SimpleShowLayout',
    'TopToolbar',
    ...(edit ? ['Edit', 'EditButton'] : []),
    ...used,
    ...validatorsOf(forms),
    ...(model.softDelete ? ['SelectInput'] : []),
  ];
  const nested = nestedUnder(model);
  return {
    ...base,
    component: model.name.pascal,
    imports: [...new Set(needed)].sort((a, b) => a.localeCompare(b)),
    columns,
    showFields,
    filters,
    createInputs,
    ...(edit ? { edit } : {}),
    buttons: methods,
    representation,
    sortLiteral: literal({ field: model.audited ? 'createdOn' : 'id', order: 'DESC' }),
    requiresKeyLiteral: literal(base.requiresKey),
    optionsLiteral: literal({
      label: label(model.plural.camel),
      ...(nested.length ? { nested } : {}),
    }),
    softDelete: model.softDelete,
  };
}
