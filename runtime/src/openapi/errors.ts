// Errors of the OpenAPI area.
import { SlicekitError } from '../errors.js';

/** Slice descriptions that cannot make a valid document; the message lists every problem. */
export class OpenApiDescriptionError extends SlicekitError {
  override name = 'OpenApiDescriptionError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      'openapi_description_invalid',
      `the slice descriptions cannot make an OpenAPI document:\n  - ${problems.join('\n  - ')}`,
    );
    this.problems = problems;
  }
}
