// Errors of the list-query engine: a broken resource definition (start-up) and the 400 problem a
// malformed query string becomes.
import { SlicekitError } from '../errors.js';
import { ProblemError, problemKinds } from '../http/index.js';

/** A `defineListResource` definition that cannot work; thrown at start-up, never per request. */
export class ListResourceDefinitionError extends SlicekitError {
  override name = 'ListResourceDefinitionError';
  /** Every broken rule, each naming the DTO property or option it is about. */
  readonly problems: readonly string[];

  constructor(table: string, problems: readonly string[]) {
    super(
      'list_query.invalid_definition',
      `list resource "${table}" is invalid:\n  - ${problems.join('\n  - ')}`,
    );
    this.problems = problems;
  }
}

/** What a 400 list-query problem says beyond its `detail`. */
export interface ListQueryProblemContext {
  /** The query-string parameter at fault (`filter`, `orderBy`, `search`, `pageSize`...). */
  parameter: string;
  /** The DTO field the parameter named, when there is one. */
  field?: string;
  /** What would have been accepted (field names, operations, enum values, a format). */
  allowed?: readonly string[] | string;
}

export const INVALID_LIST_QUERY_TYPE = problemKinds['list_query.invalid'].type;

/**
 * The 400 problem for a malformed list query. `detail` is the reason; the extensions repeat the
 * parameter, field and what is allowed so a client can point at the input.
 */
export function invalidListQuery(reason: string, context: ListQueryProblemContext): ProblemError {
  return ProblemError.of('list_query.invalid', reason, {
    reason,
    parameter: context.parameter,
    ...(context.field !== undefined ? { field: context.field } : {}),
    ...(context.allowed !== undefined ? { allowed: context.allowed } : {}),
  });
}

/**
 * The 400 problem for a `cursor` this list cannot use: altered, cut, from another list, or made
 * for another filter, search or order.
 */
export function invalidCursor(reason: string): ProblemError {
  return ProblemError.of('list_query.cursor_invalid', reason, { reason, parameter: 'cursor' });
}
