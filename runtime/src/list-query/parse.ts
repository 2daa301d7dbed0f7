// `parseListQuery`: turns Express's `req.query` into a validated `ListQuery`, or throws a 400
// problem naming the parameter, the field and what is allowed. Nothing is silently ignored.
import { readCursor } from './cursor.js';
import { invalidListQuery } from './errors.js';
import { shown } from './names.js';
import { parseFilter, queryableMember } from './parse-filter.js';
import {
  isFilterGroup,
  parseFilterGroup,
  spendCondition,
  type ConditionBudget,
} from './parse-groups.js';
import type { ListResource } from './resource.js';
import { hasSearchTargets } from './search.js';
import { parseSelect } from './select.js';
import type { ListFilter, ListFilterGroup, ListQuery } from './types.js';

/** Options of `parseListQuery`. */
export interface ParseListQueryOptions {
  /**
   * Extra query parameters the route handles itself; any other unknown parameter is a 400. A
   * name the engine reads too (`select`...) is then left to the route.
   * @default []
   */
  allowParameters?: readonly string[];
  /**
   * The key `cursor`s are signed with; give the same one to every process serving the list.
   * @default a key derived from the list's definition (tamper-evident, not secret)
   */
  cursorSecret?: string;
}

export const LIST_PARAMETERS = [
  'pageNumber',
  'pageSize',
  'filter',
  'search',
  'orderBy',
  'desc',
  'cursor',
  'select',
];
export const MAX_FILTERS = 20;
export const MIN_SEARCH_LENGTH = 2;
export const MAX_SEARCH_LENGTH = 200;
/** Longest single filter; longer is a 400 rather than a huge SQL statement. */
export const MAX_FILTER_LENGTH = 4000;
/** Page numbers above this are clamped to it (the offset stays far inside every database's range). */
export const MAX_PAGE_NUMBER = 1_000_000_000;

const canonical = new Map(LIST_PARAMETERS.map((name) => [name.toLowerCase(), name]));

function single(name: string, values: readonly string[]): string | undefined {
  if (values.length > 1) {
    throw invalidListQuery(`${name} was given ${values.length} times; give it once`, {
      parameter: name,
      allowed: 'one value',
    });
  }
  return values[0];
}

function wholeNumber(name: string, text: string | undefined): number | undefined {
  const value = text?.trim();
  if (value === undefined || value === '') return undefined;
  if (!/^[+-]?\d+$/.test(value)) {
    throw invalidListQuery(`${name}: "${shown(value)}" is not a whole number`, {
      parameter: name,
      allowed: 'a whole number',
    });
  }
  return Number(value);
}

function flag(text: string | undefined): boolean {
  if (text === undefined) return false;
  const value = text.trim().toLowerCase();
  if (value === '' || value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw invalidListQuery(`desc: "${shown(text)}" is not true or false`, {
    parameter: 'desc',
    allowed: ['true', 'false', '1', '0'],
  });
}

/** Groups the raw query by canonical parameter name, refusing unknown and non-string values. */
function collect(query: unknown, options: ParseListQueryOptions): Map<string, string[]> {
  const allowed = new Set((options.allowParameters ?? []).map((p) => p.toLowerCase()));
  const grouped = new Map<string, string[]>();
  if (query === null || query === undefined) return grouped;
  if (typeof query !== 'object') {
    throw invalidListQuery('the query string could not be read', { parameter: '(query)' });
  }
  for (const [key, raw] of Object.entries(query as Record<string, unknown>)) {
    // A parameter the route handles itself stays the route's, even one the engine later learnt
    // to read (`select`, `cursor`).
    if (allowed.has(key.toLowerCase())) continue;
    const name = canonical.get(key.toLowerCase());
    if (!name) {
      throw invalidListQuery(
        `"${shown(key)}" is not a parameter of this list; use ${LIST_PARAMETERS.join(', ')}`,
        { parameter: shown(key), allowed: LIST_PARAMETERS },
      );
    }
    const values = Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      if (typeof value !== 'string') {
        throw invalidListQuery(`${name} must be plain text, not a nested structure`, {
          parameter: name,
          allowed: 'text',
        });
      }
      // PostgreSQL refuses NUL in text outright; refuse it here, the same on every database.
      if (value.includes('\u0000')) {
        throw invalidListQuery(`${name} contains a NUL character`, {
          parameter: name,
          allowed: 'text without NUL characters',
        });
      }
    }
    grouped.set(name, [...(grouped.get(name) ?? []), ...(values as string[])]);
  }
  return grouped;
}

/** The one value of parameter `name`, if given. */
const one = (grouped: ReadonlyMap<string, readonly string[]>, name: string) =>
  single(name, grouped.get(name) ?? []);

function parseSearch(text: string | undefined): string | undefined {
  const term = text?.trim();
  if (!term) return undefined;
  const length = [...term].length;
  if (length < MIN_SEARCH_LENGTH || length > MAX_SEARCH_LENGTH) {
    throw invalidListQuery(
      `search: the term must be ${MIN_SEARCH_LENGTH} to ${MAX_SEARCH_LENGTH} characters; ` +
        `it has ${length}`,
      { parameter: 'search', allowed: `${MIN_SEARCH_LENGTH} to ${MAX_SEARCH_LENGTH} characters` },
    );
  }
  return term;
}

/**
 * Validates a list query string against the resource.
 *
 * @example
 * const query = parseListQuery(products, req.query); // throws ProblemError(400) on bad input
 */
export function parseListQuery(
  resource: ListResource<unknown>,
  query: unknown,
  options: ParseListQueryOptions = {},
): ListQuery {
  const grouped = collect(query, options);
  const requestedPage = wholeNumber('pageNumber', one(grouped, 'pageNumber')) ?? 1;
  const pageNumber = Math.min(Math.max(requestedPage, 1), MAX_PAGE_NUMBER);
  const requestedSize = wholeNumber('pageSize', one(grouped, 'pageSize'));
  const pageSize =
    requestedSize === undefined || requestedSize < 1
      ? resource.defaultPageSize
      : Math.min(requestedSize, resource.maxPageSize);

  const rawFilters = grouped.get('filter') ?? [];
  if (rawFilters.length > MAX_FILTERS) {
    throw invalidListQuery(`filter: ${rawFilters.length} filters given; at most ${MAX_FILTERS}`, {
      parameter: 'filter',
      allowed: `at most ${MAX_FILTERS} filters`,
    });
  }
  const filters: ListFilter[] = [];
  const groups: ListFilterGroup[] = [];
  const budget: ConditionBudget = { conditions: 0, groups: 0, maxConditions: MAX_FILTERS };
  for (const raw of rawFilters) {
    if (raw.length > MAX_FILTER_LENGTH) {
      throw invalidListQuery(
        `filter: a filter is ${raw.length} characters; at most ${MAX_FILTER_LENGTH}`,
        {
          parameter: 'filter',
          allowed: `at most ${MAX_FILTER_LENGTH} characters`,
        },
      );
    }
    if (isFilterGroup(raw)) {
      groups.push(parseFilterGroup(resource, raw, budget));
    } else {
      spendCondition(budget);
      filters.push(parseFilter(resource, raw));
    }
  }

  const search = parseSearch(one(grouped, 'search'));
  if (search !== undefined && !hasSearchTargets(resource.members)) {
    throw invalidListQuery('search: this list has no text fields to search', {
      parameter: 'search',
      allowed: 'no search',
    });
  }
  const orderText = one(grouped, 'orderBy')?.trim();
  const orderBy = orderText ? queryableMember(resource, orderText, 'orderBy').property : undefined;
  const desc = flag(one(grouped, 'desc'));
  const select = parseSelect(resource, one(grouped, 'select'));
  const shape = {
    filters,
    ...(groups.length > 0 ? { groups } : {}),
    ...(select !== undefined ? { select } : {}),
    ...(search !== undefined ? { search } : {}),
    ...(orderBy !== undefined ? { orderBy } : {}),
    desc,
  };
  const cursorText = one(grouped, 'cursor')?.trim();
  if (cursorText && one(grouped, 'pageNumber')?.trim()) {
    throw invalidListQuery('pageNumber and cursor were both given; give one of them', {
      parameter: 'cursor',
      allowed: 'either pageNumber or cursor',
    });
  }
  const cursor = cursorText
    ? readCursor(resource, shape, cursorText, options.cursorSecret)
    : undefined;
  return { pageNumber, pageSize, ...shape, ...(cursor ? { cursor } : {}) };
}
