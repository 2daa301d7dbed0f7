// Filter conditions: one SQL fragment per parsed filter, built from the dialect's parts so the
// result is the same on every database (see docs/list-query.md, "Cross-database guarantees").
import type { ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { ScalarMember } from './members.js';
import type { DateOnlyRange, FilterScalar, ListFilter } from './types.js';

export interface Fragment {
  sql: string;
  bindings: unknown[];
}

/** How the compiler names a column of a table in the SQL it builds (filters, search, order). */
export interface ColumnNamer {
  base(column: string): string;
  of(table: string, column: string): string;
}

const isDay = (v: unknown): v is DateOnlyRange =>
  typeof v === 'object' && v !== null && (v as DateOnlyRange).kind === 'day';

const isText = (member: ScalarMember) => member.type === 'string' || member.type === 'enum';

/** `?`, or the dialect's typed placeholder for whole numbers. */
const param = (d: SqlDialect, member: ScalarMember) =>
  member.type === 'integer' ? d.integerParam : '?';

/** Escapes LIKE wildcards and the escape character itself (`!`). */
export function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

const COMPARISON = {
  GreaterThan: '>',
  GreaterThanOrEqual: '>=',
  LessThan: '<',
  LessThanOrEqual: '<=',
} as const;

function equal(d: SqlDialect, member: ScalarMember, expr: string, value: FilterScalar): Fragment {
  if (isDay(value))
    return { sql: `(${expr} >= ? AND ${expr} < ?)`, bindings: [value.start, value.end] };
  if (isText(member) && typeof value === 'string') {
    const { sql, twice } = d.compareText(expr, '=');
    return { sql, bindings: twice ? [value, value] : [value] };
  }
  return { sql: `${expr} = ${param(d, member)}`, bindings: [value] };
}

function compare(
  d: SqlDialect,
  member: ScalarMember,
  expr: string,
  op: keyof typeof COMPARISON,
  value: FilterScalar,
): Fragment {
  if (isDay(value)) {
    // A whole UTC day: after it starts at its end; up to it ends at its start.
    const bound = op === 'GreaterThan' || op === 'LessThanOrEqual' ? value.end : value.start;
    return { sql: `${expr} ${op.startsWith('Greater') ? '>=' : '<'} ?`, bindings: [bound] };
  }
  if (isText(member) && typeof value === 'string') {
    return { sql: d.compareText(expr, COMPARISON[op]).sql, bindings: [value] };
  }
  return { sql: `${expr} ${COMPARISON[op]} ${param(d, member)}`, bindings: [value] };
}

function anyOf(
  d: SqlDialect,
  member: ScalarMember,
  expr: string,
  values: readonly FilterScalar[],
): Fragment {
  const days = values.some(isDay);
  if (!days && isText(member)) {
    const { sql, twice } = d.textIn(expr, values.length);
    return { sql, bindings: twice ? [...values, ...values] : [...values] };
  }
  if (!days) {
    const p = param(d, member);
    return { sql: `${expr} IN (${values.map(() => p).join(', ')})`, bindings: [...values] };
  }
  const parts = values.map((v) => equal(d, member, expr, v));
  return {
    sql: `(${parts.map((p) => p.sql).join(' OR ')})`,
    bindings: parts.flatMap((p) => p.bindings),
  };
}

const not = (f: Fragment, expr: string): Fragment => ({
  // A null field is not equal to, does not contain and is not in anything: it matches the negation.
  sql: `(${expr} IS NULL OR NOT (${f.sql}))`,
  bindings: f.bindings,
});

/** The SQL of one filter on the member's column expression. */
export function filterFragment(
  d: SqlDialect,
  member: ScalarMember,
  expr: string,
  filter: ListFilter,
): Fragment {
  const value = filter.value as FilterScalar;
  const like = (pattern: string): Fragment => d.likeCi(expr, pattern);
  switch (filter.operation) {
    case 'Equal':
      return equal(d, member, expr, value);
    case 'NotEqual':
      return not(equal(d, member, expr, value), expr);
    case 'GreaterThan':
    case 'GreaterThanOrEqual':
    case 'LessThan':
    case 'LessThanOrEqual':
      return compare(d, member, expr, filter.operation, value);
    case 'Contains':
      return like(`%${escapeLike(String(value))}%`);
    case 'NotContains':
      return not(like(`%${escapeLike(String(value))}%`), expr);
    case 'StartsWith':
      return like(`${escapeLike(String(value))}%`);
    case 'EndsWith':
      return like(`%${escapeLike(String(value))}`);
    case 'In':
      return anyOf(d, member, expr, filter.value as FilterScalar[]);
    case 'NotIn':
      return not(anyOf(d, member, expr, filter.value as FilterScalar[]), expr);
    case 'IsNull':
      return { sql: `${expr} IS NULL`, bindings: [] };
    case 'IsNotNull':
      return { sql: `${expr} IS NOT NULL`, bindings: [] };
  }
}
