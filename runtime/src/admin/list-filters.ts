// A React-Admin list filter as the API's list parameters (`filter=field:Operation:value`,
// `search`, `deleted`), for the admin's data provider.

/** The filter key listing soft-deleted rows too (`include`) or only them (`only`). */
export const DELETED_KEY = '@deleted';

/**
 * `filter` entries as the API's `filter=field:Operation:value` parameters. A key is a DTO field
 * (`Equal`, or `In` for a list) or `field:Operation` (`name:Contains`, `price:GreaterThan`);
 * `q` is the search box, `@deleted` the soft-deleted rows (`include` or `only`). Empty values are
 * no filter.
 */
export function listFilters(filter: Record<string, unknown> = {}): URLSearchParams {
  const query = new URLSearchParams();
  for (const [key, value] of flatten(filter)) {
    if (value === undefined || value === null || value === '') continue;
    if (key === DELETED_KEY) {
      query.set('deleted', String(value));
      continue;
    }
    if (key === 'q') {
      const term = String(value).trim();
      if (term.length >= 2) query.set('search', term);
      continue;
    }
    const [field, operation] = key.includes(':') ? key.split(':', 2) : [key, undefined];
    if (Array.isArray(value)) {
      if (value.length > 0)
        query.append('filter', `${field}:${operation ?? 'In'}:${value.join(',')}`);
    } else {
      query.append('filter', `${field}:${operation ?? 'Equal'}:${String(value)}`);
    }
  }
  return query;
}

/**
 * React-Admin keeps a filter input's dotted source (`customer.name:Contains`) as nested objects
 * (`{ customer: { 'name:Contains': 'Ana' } }`): the entries back as dotted keys.
 */
function flatten(filter: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(filter).flatMap(([key, value]): [string, unknown][] =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? flatten(value as Record<string, unknown>, `${prefix}${key}.`)
      : [[`${prefix}${key}`, value]],
  );
}
