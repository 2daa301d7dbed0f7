// Errors of the reference-data area.
import { SlicekitError } from '../errors.js';

/** A reference-data declaration is broken, or its table cannot take it safely. */
export class ReferenceDataError extends SlicekitError {
  override name = 'ReferenceDataError';
  readonly table: string;

  constructor(
    code: 'reference_data_invalid' | 'reference_data_key_not_unique',
    table: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.table = table;
  }
}
