// The order of a list query as keys (the asked or default order, then the id), its ORDER BY, and
// the keyset condition a cursor becomes: "after this row" in that order, with NULL placed as the
// ORDER BY places it (first ascending, last descending) on every database.
import { filterFragment, type Fragment } from './conditions.js';
import type { ListQueryDialect as SqlDialect } from '../sql/index.js';
import type { ScalarMember } from './members.js';
import type { QueryTarget } from './paths.js';
import type { ListResource } from './resource.js';
import type { ColumnNamer } from './conditions.js';
import { relationKey } from './to-dto.js';
import type { FilterScalar, ListQuery } from './types.js';

/** One term of the order: the member, its SQL expression, its direction and its row key. */
export interface OrderKey {
  readonly member: ScalarMember;
  readonly expr: string;
  readonly desc: boolean;
  /** Where the page query's row holds the value. */
  readonly rowKey: string;
}

/** Where a target's value is, in the page and count queries. */
export function expressionOf(target: QueryTarget, names: ColumnNamer): string {
  return target.kind === 'relation'
    ? names.of(target.relation.alias, target.member.column)
    : names.base(target.member.column);
}

/** The order keys of a query: the asked order (or the default), then the id as tie-breaker. */
export function orderKeys(
  resource: ListResource<unknown>,
  query: Pick<ListQuery, 'orderBy' | 'desc'>,
  names: ColumnNamer,
): OrderKey[] {
  const id = resource.idMember;
  const keys: OrderKey[] = [];
  const asked = query.orderBy ? resource.target(query.orderBy) : undefined;
  if (asked) {
    const rowKey =
      asked.kind === 'relation'
        ? relationKey(asked.relation.property, asked.member.property.split('.')[1]!)
        : asked.member.column;
    keys.push({ member: asked.member, expr: expressionOf(asked, names), desc: query.desc, rowKey });
  } else if (resource.createdOnMember) {
    const createdOn = resource.createdOnMember;
    keys.push({
      member: createdOn,
      expr: names.base(createdOn.column),
      desc: true,
      rowKey: createdOn.column,
    });
  }
  if (asked?.member.property !== id.property) {
    keys.push({ member: id, expr: names.base(id.column), desc: true, rowKey: id.column });
  }
  return keys;
}

/** The same keys in the opposite order (to read the page before a row). */
export const reversed = (keys: readonly OrderKey[]): OrderKey[] =>
  keys.map((k) => ({ ...k, desc: !k.desc }));

/** The ORDER BY terms of `keys`: text in code-point order, NULL first ascending. */
export function orderByTerms(d: SqlDialect, keys: readonly OrderKey[]): string[] {
  return keys.map(({ member, expr, desc }) => {
    const sorted =
      member.type === 'string' || member.type === 'enum'
        ? d.orderText(expr, member.type === 'enum')
        : expr;
    return `${sorted} ${desc ? 'DESC' : 'ASC'}${member.nullable ? d.nullsOrder(desc) : ''}`;
  });
}

const FALSE: Fragment = { sql: '1 = 0', bindings: [] };

/** `key` comes strictly after `value` in its direction (NULL is the least value). */
function after(d: SqlDialect, key: OrderKey, value: FilterScalar | null): Fragment {
  const { member, expr, desc } = key;
  if (value === null) return desc ? FALSE : { sql: `${expr} IS NOT NULL`, bindings: [] };
  const field = member.property;
  const past = filterFragment(d, member, expr, {
    field,
    operation: desc ? 'LessThan' : 'GreaterThan',
    value,
  });
  // Descending, the NULLs come last: after every value.
  if (!desc || !member.nullable) return past;
  return { sql: `(${past.sql} OR ${expr} IS NULL)`, bindings: past.bindings };
}

function same(d: SqlDialect, key: OrderKey, value: FilterScalar | null): Fragment {
  if (value === null) return { sql: `${key.expr} IS NULL`, bindings: [] };
  return filterFragment(d, key.member, key.expr, {
    field: key.member.property,
    operation: 'Equal',
    value,
  });
}

/**
 * Rows after the one whose key is `values`, in the order of `keys`:
 * `k1 after v1 OR (k1 = v1 AND k2 after v2) OR ...`.
 */
export function seekCondition(
  d: SqlDialect,
  keys: readonly OrderKey[],
  values: readonly (FilterScalar | null)[],
): Fragment {
  const branches: Fragment[] = keys.map((key, i) => {
    const parts = [
      ...keys.slice(0, i).map((k, j) => same(d, k, values[j]!)),
      after(d, key, values[i]!),
    ];
    return {
      sql: parts.length === 1 ? parts[0]!.sql : `(${parts.map((p) => p.sql).join(' AND ')})`,
      bindings: parts.flatMap((p) => p.bindings),
    };
  });
  const seek: Fragment = {
    sql: `(${branches.map((b) => b.sql).join(' OR ')})`,
    bindings: branches.flatMap((b) => b.bindings),
  };
  // The same rows, with the first key bounded on its own as well (`k1 <= v1 AND (...)`): a bound
  // every database can start its index range at, where the OR alone made some walk from the
  // list's start. Left out for a nullable first key, whose NULLs sort past every value.
  const [first] = keys;
  const value = values[0];
  if (!first || keys.length < 2 || first.member.nullable || value === null || value === undefined) {
    return seek;
  }
  const bound = filterFragment(d, first.member, first.expr, {
    field: first.member.property,
    operation: first.desc ? 'LessThanOrEqual' : 'GreaterThanOrEqual',
    value,
  });
  return { sql: `(${bound.sql} AND ${seek.sql})`, bindings: [...bound.bindings, ...seek.bindings] };
}
