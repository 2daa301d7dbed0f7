// Parses one `field:operation:value` filter against the DTO: field resolution, operation, value
// form and coercion. Every problem is a 400 naming the filter, the field and what is allowed.
import { coerceValue } from './coerce.js';
import { invalidListQuery } from './errors.js';
import { describeKind, type ScalarMember } from './members.js';
import type { QueryTarget } from './paths.js';
import { shown } from './names.js';
import type { ListResource } from './resource.js';
import {
  FilterOperations,
  type FilterOperation,
  type FilterScalar,
  type ListFilter,
} from './types.js';

const byLowerName = new Map(FilterOperations.map((op) => [op.toLowerCase(), op]));
const TEXT_OPERATIONS = new Set<FilterOperation>([
  'Contains',
  'NotContains',
  'StartsWith',
  'EndsWith',
]);
const ORDER_OPERATIONS = new Set<FilterOperation>([
  'GreaterThan',
  'GreaterThanOrEqual',
  'LessThan',
  'LessThanOrEqual',
]);
/** Most elements an In / NotIn list may hold. */
export const MAX_IN_ELEMENTS = 100;

/**
 * Resolves a field name, or a dotted path to a nested or collection member (`customer.name`,
 * `tags.name`), to what can be filtered or ordered; anything else is a 400 naming what can.
 */
export function queryTarget(
  resource: ListResource<unknown>,
  name: string,
  parameter: string,
): QueryTarget {
  const target = resource.target(name);
  const allowed = resource.queryableFields.filter(
    (field) => parameter !== 'orderBy' || resource.target(field)?.kind !== 'collection',
  );
  if (target && (parameter !== 'orderBy' || target.kind !== 'collection')) return target;
  if (target) {
    throw invalidListQuery(
      `${parameter}: ${target.member.property} is a member of a collection's elements and ` +
        `cannot order the list; use one of ${allowed.join(', ')}`,
      { parameter, field: target.member.property, allowed },
    );
  }
  const member = resource.member(name);
  if (!member) {
    throw invalidListQuery(
      `${parameter}: "${shown(name)}" is not a field of this list; use one of ${allowed.join(', ')}`,
      { parameter, field: name.slice(0, 60), allowed },
    );
  }
  throw invalidListQuery(
    `${parameter}: ${member.property} is ${describeKind(member)} and cannot be used here; ` +
      `use one of ${allowed.join(', ')}`,
    { parameter, field: member.property, allowed },
  );
}

/** Resolves a field name to a plain column that can be filtered or ordered, or throws a 400. */
export function queryableMember(
  resource: ListResource<unknown>,
  name: string,
  parameter: string,
): ScalarMember {
  return queryTarget(resource, name, parameter).member;
}

function operationOf(text: string, field: string): FilterOperation {
  const op = byLowerName.get(text.trim().toLowerCase());
  if (!op) {
    throw invalidListQuery(
      `filter: "${shown(text)}" is not a filter operation; use one of ${FilterOperations.join(', ')}`,
      { parameter: 'filter', field, allowed: FilterOperations },
    );
  }
  return op;
}

function checkApplies(member: ScalarMember, op: FilterOperation): void {
  const refuse = (what: string, allowed: string) =>
    invalidListQuery(`filter: ${op} ${what}; ${member.property} is ${describeKind(member)}`, {
      parameter: 'filter',
      field: member.property,
      allowed,
    });
  if (TEXT_OPERATIONS.has(op) && member.type !== 'string') {
    throw refuse('applies to text fields only', 'Equal, NotEqual, In, NotIn, IsNull, IsNotNull');
  }
  if (ORDER_OPERATIONS.has(op) && member.type === 'boolean') {
    throw refuse('does not apply to true/false', 'Equal, NotEqual, In, NotIn, IsNull, IsNotNull');
  }
}

/** Parses one raw `filter` value. */
export function parseFilter(resource: ListResource<unknown>, raw: string): ListFilter {
  const first = raw.indexOf(':');
  if (first < 0) {
    throw invalidListQuery(
      `filter: "${shown(raw)}" must look like field:operation:value (or field:IsNull)`,
      { parameter: 'filter', allowed: 'field:operation:value' },
    );
  }
  const fieldName = raw.slice(0, first).trim();
  const rest = raw.slice(first + 1);
  const second = rest.indexOf(':');
  const opText = second < 0 ? rest : rest.slice(0, second);
  const value = second < 0 ? undefined : rest.slice(second + 1);
  const member = queryableMember(resource, fieldName, 'filter');
  const operation = operationOf(opText, member.property);
  const field = member.property;

  if (operation === 'IsNull' || operation === 'IsNotNull') {
    if (value !== undefined && value !== '') {
      throw invalidListQuery(`filter: ${operation} takes no value; write ${field}:${operation}`, {
        parameter: 'filter',
        field,
        allowed: `${field}:${operation}`,
      });
    }
    return { field, operation };
  }
  if (value === undefined) {
    throw invalidListQuery(
      `filter: ${operation} needs a value; write ${field}:${operation}:value`,
      {
        parameter: 'filter',
        field,
        allowed: `${field}:${operation}:value`,
      },
    );
  }
  checkApplies(member, operation);
  if (TEXT_OPERATIONS.has(operation) && value === '') {
    throw invalidListQuery(`filter: ${operation} needs a non-empty value`, {
      parameter: 'filter',
      field,
      allowed: 'at least one character',
    });
  }
  if (operation === 'In' || operation === 'NotIn') {
    const parts = value.split(',');
    if (parts.length > MAX_IN_ELEMENTS) {
      throw invalidListQuery(
        `filter: ${operation} on ${field} lists ${parts.length} values; at most ${MAX_IN_ELEMENTS}`,
        {
          parameter: 'filter',
          field,
          allowed: `at most ${MAX_IN_ELEMENTS} comma-separated values`,
        },
      );
    }
    const values: FilterScalar[] = parts.map((part) => coerceValue(member, part, 'filter'));
    return { field, operation, value: values };
  }
  return { field, operation, value: coerceValue(member, value, 'filter') };
}
