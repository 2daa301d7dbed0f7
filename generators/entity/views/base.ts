// What every entity template reads: the slice's names, paths and flags, each method's names and
// route, and the numbered fields' sequence names, computed once per run from the resolved model.
// Each template's view (the other files here) adds only what its own file needs.
import type { NameForms } from '../../names.js';
import { literal } from '../literal.js';
import { patchView, type PatchView } from './patch.js';
import type { EntityModel, FieldModel, MethodModel } from '../../model/types.js';

/** Which operations' routes require an idempotency key. */
export interface KeyRequired {
  create: boolean;
  update: boolean;
  delete: boolean;
  action: boolean;
}

/** An update method or an action, by name and route. */
export interface MethodBase {
  kind: MethodModel['kind'];
  camel: string;
  pascal: string;
  verb: MethodModel['verb'];
  /** The Express router method: `post`. */
  httpMethod: string;
  /** Path after `/{id}`; empty for the first update. */
  segment: string;
  /** The Express route: `/products/:id/approval`. */
  route: string;
  /** The OpenAPI path: `/v1/products/{id}/approval`. */
  docPath: string;
  /** Its doc comment: `Approve: POST /v1/products/{id}/approval`, then its description. */
  doc: string;
  requestName: string;
  /** The request's JSON Schema constant: `approveProductRequestSchema`. */
  schemaName: string;
  hasParams: boolean;
  requiresKey: boolean;
  /** The spec's `access` names it: its route checks the caller's roles first. */
  guarded: boolean;
}

/** One entry of the slice's access table: the operation and its rule as TypeScript. */
export interface AccessEntry {
  operation: string;
  /** `'authenticated'`, `['librarian', 'admin']`. */
  literal: string;
}

/** A field numbered by a sequence on create. */
export interface NumberedField {
  property: string;
  column: string;
  /** The constant `<entity>.sequences.ts` exports: `ticketNumberSequence`. */
  constName: string;
  /** The runtime function taking its next value: the number, or the number formatted. */
  next: 'nextNumber' | 'nextValue';
}

export interface SliceBase {
  entity: NameForms;
  plural: NameForms;
  table: string;
  resource: string;
  folder: string;
  /** `/v1/products` */
  apiPath: string;
  /** `/products`, as the router (mounted at /v1) sees it. */
  collection: string;
  isAudited: boolean;
  isOwned: boolean;
  /** A delete marks the row; `POST /{id}/restore` brings it back. */
  softDelete: boolean;
  validate: boolean;
  hasEvents: boolean;
  hasReferenceData: boolean;
  hasSequences: boolean;
  /** Its spec declares a reference or a collection: it has an <entity>.relations.ts. */
  hasRelations: boolean;
  isIdempotent: boolean;
  requiresKey: KeyRequired;
  /** The spec's `access`, in route order; empty without one. */
  access: AccessEntry[];
  /** The built-in operations the spec's `access` names (`guarded.list`...). */
  guarded: Record<string, boolean>;
  methods: MethodBase[];
  /** PATCH /{id}, when the spec asks for it (patch.ts). */
  patch: PatchView | undefined;
  numbered: NumberedField[];
  /** The runtime functions the numbered fields take their values with, sorted. */
  sequenceFunctions: NumberedField['next'][];
}

/** The doc line of a method. */
function methodDoc(m: MethodModel, docPath: string): string {
  return `${m.name.pascal}: ${m.verb} ${docPath}${m.description ? `. ${m.description}` : ''}`;
}

function numberedField(model: EntityModel, f: FieldModel): NumberedField {
  return {
    property: f.name.camel,
    column: f.column,
    constName: `${model.name.camel}${f.name.pascal}Sequence`,
    next: f.type === 'integer' ? 'nextNumber' : 'nextValue',
  };
}

/** Whether the slice has a relations file: its spec declares a reference or a collection. */
export function hasRelations(model: EntityModel): boolean {
  return (
    model.fields.some((f) => f.reference) || model.links.length > 0 || model.collections.length > 0
  );
}

/** The base every view extends. */
export function sliceBase(model: EntityModel): SliceBase {
  const collection = `/${model.resource}`;
  const apiPath = `/v1/${model.resource}`;
  const guarded = new Set(model.idempotent);
  const requiresKey: KeyRequired = {
    create: guarded.has('Create'),
    update: guarded.has('Update'),
    delete: guarded.has('Delete'),
    action: guarded.has('Action'),
  };
  const rules = model.access ?? {};
  const methods = model.methods.map((m): MethodBase => {
    const tail = m.segment ? `/${m.segment}` : '';
    const docPath = `${apiPath}/{id}${tail}`;
    return {
      kind: m.kind,
      camel: m.name.camel,
      pascal: m.name.pascal,
      verb: m.verb,
      httpMethod: m.verb.toLowerCase(),
      segment: m.segment,
      route: `${collection}/:id${tail}`,
      docPath,
      doc: methodDoc(m, docPath),
      requestName: m.requestName,
      schemaName: `${m.requestName.charAt(0).toLowerCase()}${m.requestName.slice(1)}Schema`,
      hasParams: m.params.length > 0,
      requiresKey: requiresKey[m.kind],
      guarded: rules[m.name.pascal] !== undefined,
    };
  });
  const access = Object.entries(rules).map(([operation, rule]) => ({
    operation,
    literal: literal(rule),
  }));
  const numbered = model.fields.filter((f) => f.sequence).map((f) => numberedField(model, f));
  return {
    entity: model.name,
    plural: model.plural,
    table: model.table,
    resource: model.resource,
    folder: model.folder,
    apiPath,
    collection,
    isAudited: model.audited,
    isOwned: model.owned,
    softDelete: model.softDelete,
    validate: model.validate,
    hasEvents: model.events.length > 0,
    hasReferenceData: model.referenceData !== undefined,
    hasSequences: numbered.length > 0,
    hasRelations: hasRelations(model),
    isIdempotent: guarded.size > 0,
    requiresKey,
    access,
    guarded: Object.fromEntries(access.map((a) => [a.operation, true])),
    methods,
    patch: patchView(model),
    numbered,
    sequenceFunctions: [...new Set(numbered.map((n) => n.next))].sort(),
  };
}

/** `base.methods` beside the model's methods, for views that add to each. */
export function eachMethod<T>(
  model: EntityModel,
  base: SliceBase,
  view: (method: MethodModel, names: MethodBase, index: number) => T,
): (MethodBase & T)[] {
  return model.methods.map((m, i) => ({ ...base.methods[i]!, ...view(m, base.methods[i]!, i) }));
}
