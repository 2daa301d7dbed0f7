// Declaring a named sequence: its value type, start, maximum and format, validated once.
import { SequenceDefinitionError } from './errors.js';
import { parseSequenceFormat, type SequenceFormat } from './format.js';

/** Value types a sequence can have; the type bounds the maximum. */
export const sequenceValueTypes = {
  /** 32-bit: PostgreSQL `integer`. */
  int: 2_147_483_647,
  /** 64-bit in the database; values are JavaScript numbers, so capped at 2^53 - 1. */
  bigint: Number.MAX_SAFE_INTEGER,
} as const;
export type SequenceValueType = keyof typeof sequenceValueTypes;

export interface SequenceOptions {
  /** Database name of the sequence: letters, digits and `_`, starting with a letter or `_`. */
  name: string;
  /** Type of the values. @default 'bigint' */
  valueType?: SequenceValueType;
  /** Format of `nextValue` results (see docs/sequences.md). @default '{1}' (the plain number) */
  format?: string;
  /** First value handed out. @default 1 */
  start?: number;
  /** Last value handed out; the next request fails with `sequence_exhausted`. @default the type's maximum */
  max?: number;
}

export interface SequenceDefinition {
  readonly name: string;
  readonly valueType: SequenceValueType;
  readonly start: number;
  readonly max: number;
  readonly format: SequenceFormat;
}

/**
 * Validates a sequence declaration; every broken rule is listed in one `SequenceDefinitionError`.
 *
 * @example
 * export const ticketNumbers = defineSequence({
 *   name: 'ticket_numbers', format: 'T{DateTime:yyMMdd}{1:00000}', max: 99999,
 * });
 */
export function defineSequence(options: SequenceOptions): SequenceDefinition {
  const problems: string[] = [];
  const valueType = options.valueType ?? 'bigint';
  const typeMax = sequenceValueTypes[valueType];
  if (typeMax === undefined) problems.push(`valueType must be int or bigint`);
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(options.name ?? '')) {
    problems.push(
      `name "${options.name}" must be 1-63 letters, digits or _, not starting with a digit`,
    );
  }
  const start = options.start ?? 1;
  const max = options.max ?? typeMax ?? 0;
  if (!Number.isSafeInteger(start) || start < 1) problems.push(`start must be an integer >= 1`);
  if (!Number.isSafeInteger(max) || max < start) problems.push(`max must be an integer >= start`);
  if (typeMax !== undefined && max > typeMax) {
    problems.push(`max ${max} does not fit valueType ${valueType} (at most ${typeMax})`);
  }
  let format: SequenceFormat | undefined;
  try {
    format = parseSequenceFormat(options.format ?? '{1}');
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0 || !format) {
    throw new SequenceDefinitionError(`sequence "${options.name}": ${problems.join('; ')}`);
  }
  return Object.freeze({ name: options.name, valueType, start, max, format });
}
