// Public types of the list-query engine: the parsed list query, filter operations and the paged
// response every list route answers with.

/** The fourteen filter operations; names are matched case-insensitively in the query string. */
export const FilterOperations = [
  'Equal',
  'NotEqual',
  'GreaterThan',
  'GreaterThanOrEqual',
  'LessThan',
  'LessThanOrEqual',
  'Contains',
  'NotContains',
  'StartsWith',
  'EndsWith',
  'In',
  'NotIn',
  'IsNull',
  'IsNotNull',
] as const;

export type FilterOperation = (typeof FilterOperations)[number];

/** A coerced filter value: what the database is compared with. */
export type FilterScalar = string | number | boolean | Date | DateOnlyRange;

/**
 * A date-only value (`2024-05-01`) given for a date-time member: it stands for the whole UTC day,
 * `[start, end)`.
 */
export interface DateOnlyRange {
  readonly kind: 'day';
  readonly day: string;
  readonly start: Date;
  readonly end: Date;
}

/** One parsed `field:operation:value` condition, resolved against the DTO. */
export interface ListFilter {
  /** The DTO property (camelCase) the filter resolved to. */
  readonly field: string;
  readonly operation: FilterOperation;
  /** Undefined for IsNull / IsNotNull; an array for In / NotIn; otherwise one coerced value. */
  readonly value?: FilterScalar | readonly FilterScalar[];
}

/**
 * An OR (or AND) group of conditions from one `filter=or(...)` value: its members are combined
 * with `combine`, and the group is ANDed with every other filter. Members may be groups again,
 * to `MAX_GROUP_DEPTH`.
 */
export interface ListFilterGroup {
  readonly combine: 'or' | 'and';
  readonly members: readonly (ListFilter | ListFilterGroup)[];
}

/** A validated list query: what `parseListQuery` returns and `runListQuery` executes. */
export interface ListQuery {
  /** 1-based page number, already clamped. */
  readonly pageNumber: number;
  /** Page size, already clamped to `[1, maxPageSize]`. */
  readonly pageSize: number;
  readonly filters: readonly ListFilter[];
  /** `filter=or(...)` groups, each ANDed with `filters` and the other groups. @default none */
  readonly groups?: readonly ListFilterGroup[];
  /**
   * `select`: the DTO members (or `relation.member` paths) each item carries, in canonical
   * spelling; undefined means every member.
   */
  readonly select?: readonly string[];
  /** The trimmed search term; undefined when no search was asked for. */
  readonly search?: string;
  /** The DTO property to order by; undefined means the default order. */
  readonly orderBy?: string;
  readonly desc: boolean;
  /** Where a `cursor` said the page starts; undefined for a page by number. */
  readonly cursor?: ListCursor;
}

/**
 * A decoded, verified `cursor`: the page starts after (`next`) or ends before (`previous`) the
 * row whose order key is `values` (the order's value, then the id), each coerced to its member.
 */
export interface ListCursor {
  readonly direction: 'next' | 'previous';
  readonly values: readonly (FilterScalar | null)[];
}

/** How `totalItemCount` is counted; `Prefer: count=...` or the resource choose it. */
export const CountModes = ['exact', 'estimated', 'none'] as const;
export type CountMode = (typeof CountModes)[number];

/**
 * What `totalItemCount` is: the exact number, the database's estimate, or a lower bound (there are
 * at least that many); null when nothing was counted.
 */
export type TotalItemCountKind = 'exact' | 'estimated' | 'lowerBound';

/** The body of every list response. */
export interface PagedResponse<T> {
  items: T[];
  /** `ceil(totalItemCount / pageSize)`; null when counting was switched off (`count: 'none'`). */
  pageCount: number | null;
  /** The page served; null for a page chosen by `cursor` (its number is not known). */
  pageNumber: number | null;
  pageSize: number;
  /** The full, unpaged number of matching rows; null when counting was switched off. */
  totalItemCount: number | null;
  /** Whether `totalItemCount` is exact, an estimate or a lower bound; null when not counted. */
  totalItemCountKind: TotalItemCountKind | null;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** The `cursor` of the page after this one; null when there is none. */
  nextCursor: string | null;
  /** The `cursor` of the page before this one; null when there is none. */
  previousCursor: string | null;
}
