// Errors of the sequences area, each with a stable code.
import { SlicekitError } from '../errors.js';

/** A sequence definition or its format string breaks a rule (found when it is defined). */
export class SequenceDefinitionError extends SlicekitError {
  override name = 'SequenceDefinitionError';

  constructor(message: string) {
    super('sequence_definition_invalid', message);
  }
}

/** The sequence has handed out its maximum; no further value exists. */
export class SequenceExhaustedError extends SlicekitError {
  override name = 'SequenceExhaustedError';
  readonly sequence: string;
  readonly max: number;

  constructor(sequence: string, max: number, options?: { cause?: unknown }) {
    super(
      'sequence_exhausted',
      `sequence "${sequence}" has reached its maximum of ${max}`,
      options,
    );
    this.sequence = sequence;
    this.max = max;
  }
}

/** The sequence was never created: its migration has not run. */
export class SequenceNotFoundError extends SlicekitError {
  override name = 'SequenceNotFoundError';
  readonly sequence: string;

  constructor(sequence: string, options?: { cause?: unknown }) {
    super(
      'sequence_not_found',
      `sequence "${sequence}" does not exist: run the migration from sequenceMigration() first`,
      options,
    );
    this.sequence = sequence;
  }
}
