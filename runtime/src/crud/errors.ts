// Errors of the CRUD plumbing: start-up mistakes (a slice folder or table definition that cannot
// work) and the 400/404 problems generated routes answer with.
import { SlicekitError } from '../errors.js';
import { ProblemError } from '../http/problem.js';

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

export const NOT_FOUND_TYPE = 'urn:slicekit:problem:not-found';
export const INVALID_REQUEST_TYPE = 'urn:slicekit:problem:invalid-request';
export const PRECONDITION_FAILED_TYPE = 'urn:slicekit:problem:precondition-failed';

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
  return new ProblemError(404, `${entity} ${id} does not exist`, {
    type: NOT_FOUND_TYPE,
    code: 'crud.not_found',
    id,
  });
}

/** The 412 problem of a change whose `If-Match` no longer matches the row. */
export function preconditionFailed(entity: string, id: string): ProblemError {
  return new ProblemError(
    412,
    `${entity} ${id} has changed since the version in If-Match; load it again and retry`,
    { type: PRECONDITION_FAILED_TYPE, code: 'crud.precondition_failed', id },
  );
}

/** The 400 problem listing every field error of a request. */
export function invalidRequest(errors: readonly FieldError[]): ProblemError {
  const fields = [...new Set(errors.map((e) => e.field || 'the body'))];
  return new ProblemError(400, `the request is invalid: ${fields.join(', ')}`, {
    type: INVALID_REQUEST_TYPE,
    code: 'crud.invalid_request',
    errors,
  });
}
