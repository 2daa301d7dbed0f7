// Per-kind defaults of the six generated operations: method, path, status, names.
import type {
  CrudOperationKind,
  HttpMethod,
  OperationDescription,
  SliceDescription,
} from './types.js';

export const defaultMethods: Record<CrudOperationKind, HttpMethod> = {
  getById: 'get',
  list: 'get',
  create: 'post',
  update: 'put',
  delete: 'delete',
  restore: 'post',
  action: 'post',
};

const kebab = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
const camel = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);
/** `order-lines` -> `OrderLines`. */
const pascal = (segment: string) =>
  segment.replace(/(^|-)([a-z0-9])/g, (_, _dash: string, c: string) => c.toUpperCase());

/** `OrderLine` -> `order line`. */
const words = (name: string) => kebab(name).split('-').filter(Boolean).join(' ');

/** `a product`, `an order line`, `a user`: the article by the first sound, as the generator's. */
const aOrAn = (noun: string) =>
  `${/^(?:[aeio]|u(?!r|s|u|ni|ti))/i.test(noun) ? 'an' : 'a'} ${noun}`;

/**
 * The summary of an update method or action in English: its first word is the verb, the rest
 * what it changes (`ChangePrice` -> `Change the price of a product`, `Approve` -> `Approve a
 * product`).
 */
function methodSummary(name: string, entity: string): string {
  const [verb = '', ...object] = words(name).split(' ');
  const Verb = verb.charAt(0).toUpperCase() + verb.slice(1);
  return object.length > 0
    ? `${Verb} the ${object.join(' ')} of ${aOrAn(entity)}`
    : `${Verb} ${aOrAn(entity)}`;
}

/** The resolved shape of one operation: where it lives and what it is called. */
export interface ResolvedOperation {
  description: OperationDescription;
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/v1/products/{id}/approval`. */
  path: string;
  onItem: boolean;
  status: number;
  operationId: string;
  requestName: string | undefined;
  summary: string;
}

export function resolveOperation(
  slice: SliceDescription,
  op: OperationDescription,
): ResolvedOperation {
  const { entity } = slice;
  const base = slice.path.replace(/\/+$/, '');
  // A one-to-many's nested route lists this entity under one row of its parent.
  const nested = op.kind === 'list' ? op.parent : undefined;
  const onItem = (op.kind !== 'list' && op.kind !== 'create') || nested !== undefined;
  const segment =
    nested?.segment ??
    op.segment ??
    (op.kind === 'action' && op.name
      ? kebab(op.name)
      : op.kind === 'restore'
        ? 'restore'
        : undefined);
  const root = nested ? nested.path.replace(/\/+$/, '') : base;
  const path = onItem ? `${root}/{id}${segment ? `/${segment}` : ''}` : base;
  const name = op.name ?? '';
  const ids: Record<CrudOperationKind, string> = {
    getById: `get${entity}ById`,
    list: nested ? `list${nested.entity}${pascal(nested.segment)}` : `get${entity}List`,
    create: `create${entity}`,
    update: `${camel(name || 'Update')}${entity}`,
    delete: `delete${entity}`,
    restore: `restore${entity}`,
    action: `${camel(name)}${entity}`,
  };
  const noun = words(entity);
  const summaries: Record<CrudOperationKind, string> = {
    getById: `Get ${aOrAn(noun)} by id`,
    list: nested
      ? `List the ${noun} records of ${aOrAn(words(nested.entity))}: paging, filter, search and order from the query string`
      : `List ${noun} records: paging, filter, search and order from the query string`,
    create: `Create ${aOrAn(noun)}`,
    update: methodSummary(name || 'Update', noun),
    delete: `Delete ${aOrAn(noun)}`,
    restore: `Restore a deleted ${noun}, with what its delete took`,
    action: methodSummary(name, noun),
  };
  const hasBody = op.request !== undefined;
  let requestName: string | undefined;
  if (hasBody) {
    requestName =
      op.requestName ??
      (op.kind === 'create' ? `Create${entity}Request` : `${name}${entity}Request`);
  }
  return {
    description: op,
    method: op.method ?? defaultMethods[op.kind],
    path,
    onItem,
    status: op.status ?? (op.kind === 'create' ? 201 : op.kind === 'delete' ? 204 : 200),
    operationId: ids[op.kind],
    requestName,
    summary: op.summary ?? summaries[op.kind],
  };
}

/** Every rule a slice description breaks, each naming the slice and operation. */
export function checkSlice(slice: SliceDescription, index: number): string[] {
  const where = `slices[${index}] (${slice.entity || '?'})`;
  const problems: string[] = [];
  if (!/^[A-Z][A-Za-z0-9]*$/.test(slice.entity ?? ''))
    problems.push(`${where}: entity must be PascalCase`);
  if (!/^\/[A-Za-z0-9\-._~/]*$/.test(slice.path ?? '') || slice.path.includes('{')) {
    problems.push(`${where}: path "${slice.path}" must be a plain path starting with /`);
  }
  if (typeof slice.dto !== 'object' || slice.dto === null)
    problems.push(`${where}: dto schema is required`);
  slice.operations.forEach((op, i) => {
    const at = `${where}.operations[${i}] (${op.kind})`;
    if (!(op.kind in defaultMethods)) problems.push(`${at}: unknown kind`);
    if (
      (op.kind === 'update' || op.kind === 'action') &&
      !/^[A-Z][A-Za-z0-9]*$/.test(op.name ?? '')
    ) {
      problems.push(`${at}: name must be the PascalCase method name`);
    }
    if (op.segment !== undefined && !/^[A-Za-z0-9\-._~]+$/.test(op.segment)) {
      problems.push(`${at}: segment "${op.segment}" must be one bare path segment`);
    }
    if (op.kind === 'action' && op.method === 'delete')
      problems.push(`${at}: actions have no delete verb`);
  });
  return problems;
}
