// Errors of the CRUD plumbing: start-up mistakes (a slice folder or table definition that cannot
// work) and the 400/404 problems generated routes answer with.
import { SlicekitError } from '../errors.js';
import { ProblemError, problemKinds } from '../http/index.js';

/** A slice folder whose `index` does not default-export a usable `SliceModule`. */
export class SliceDiscoveryError extends SlicekitError {
  override name = 'SliceDiscoveryError';
  /** The file at fault. */
  readonly file: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super('crud.invalid_slice', `${file}: ${reason}`, options);
    this.file = file;
  }
}

/** A `defineEntityTable` definition that cannot work; thrown at start-up. */
export class EntityTableDefinitionError extends SlicekitError {
  override name = 'EntityTableDefinitionError';
  readonly problems: readonly string[];

  constructor(table: string, problems: readonly string[]) {
    super(
      'crud.invalid_table',
      `entity table "${table}" is invalid:\n  - ${problems.join('\n  - ')}`,
    );
    this.problems = problems;
  }
}

/** A `CrudMapOptions.exclude` entry that names no `CrudOp`. */
export class CrudOptionsError extends SlicekitError {
  override name = 'CrudOptionsError';

  constructor(message: string) {
    super('crud.invalid_options', message);
  }
}

export const NOT_FOUND_TYPE = problemKinds['crud.not_found'].type;
export const INVALID_REQUEST_TYPE = problemKinds['crud.invalid_request'].type;
export const PRECONDITION_FAILED_TYPE = problemKinds['crud.precondition_failed'].type;

/** One rejected input value of a request. */
export interface FieldError {
  /** The body property (dotted for nested ones) or `id` for the route id; empty for the body. */
  field: string;
  /** What is wrong, in words a client can show. */
  message: string;
  /** The JSON Schema keyword that failed (`required`, `maxLength`, `minimum`...). */
  keyword: string;
}

/** The 404 problem of an unknown id. */
export function notFound(entity: string, id: string): ProblemError {
  return ProblemError.of('crud.not_found', `${entity} ${id} does not exist`, { id });
}

/** The 412 problem of a change whose `If-Match` no longer matches the row. */
export function preconditionFailed(entity: string, id: string): ProblemError {
  return ProblemError.of(
    'crud.precondition_failed',
    `${entity} ${id} has changed since the version in If-Match; load it again and retry`,
    { id },
  );
}

/** The 400 problem listing every field error of a request. */
export function invalidRequest(errors: readonly FieldError[]): ProblemError {
  const fields = [...new Set(errors.map((e) => e.field || 'the body'))];
  return ProblemError.of('crud.invalid_request', `the request is invalid: ${fields.join(', ')}`, {
    errors,
  });
}
