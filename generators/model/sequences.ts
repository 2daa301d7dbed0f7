// Sequence-numbered fields: checks a field's `sequence` (format, limits, the room its column has)
// and resolves its defaults.
import type { SpecProblem } from './errors.js';
import { DEFAULT_STRING_LENGTH } from './fields.js';
import type { FieldModel, FieldSpec } from './types.js';
import { withArticle } from '../names.js';

const SEQUENCE_LIMITS = { int: 2_147_483_647, bigint: Number.MAX_SAFE_INTEGER } as const;

/** The longest text `format` renders for numbers up to `max`: what the column must hold. */
function longestFormatted(format: string, max: number): number {
  const digits = String(max).length;
  let length = 0;
  for (const piece of format.match(/\{\{|\}\}|\{[^{}]*\}|[^{}]/g) ?? []) {
    const number = /^\{1(?::(0+))?\}$/.exec(piece);
    if (number) length += Math.max(digits, number[1]?.length ?? 0);
    else if (piece.startsWith('{DateTime:')) length += piece.length - '{DateTime:}'.length;
    else length += 1;
  }
  return length;
}

/** Checks a field's `sequence` and resolves its defaults (the name once the table is known). */
export function resolveSequence(
  path: string,
  field: FieldSpec,
  problems: SpecProblem[],
): FieldModel['sequence'] {
  const sequence = field.sequence;
  if (!sequence) return undefined;
  const at = `${path}.sequence`;
  if (field.type !== 'string' && field.type !== 'integer') {
    problems.push({
      path: at,
      message: `${withArticle(field.type)} field cannot be numbered by a sequence`,
      fix: 'use it on a string field (formatted) or an integer field',
    });
    return undefined;
  }
  if (field.default !== undefined) {
    problems.push({
      path: `${path}.default`,
      message: 'a field numbered by a sequence takes no default',
      fix: 'remove the default',
    });
  }
  if (sequence.format !== undefined) {
    const numbers = sequence.format.replace(/\{\{|\}\}/g, '').match(/\{1(:0+)?\}/g) ?? [];
    if (field.type === 'integer') {
      problems.push({
        path: `${at}.format`,
        message: 'an integer field holds the plain number',
        fix: 'remove format, or make the field a string',
      });
    } else if (numbers.length !== 1) {
      problems.push({
        path: `${at}.format`,
        message: `"${sequence.format}" must show the number exactly once`,
        fix: "write it as {1} or {1:00000}, e.g. 'T{DateTime:yyMMdd}{1:00000}'",
      });
    }
  }
  const valueType = sequence.valueType ?? (field.type === 'integer' ? 'int' : 'bigint');
  const limit = SEQUENCE_LIMITS[valueType];
  if (field.type === 'integer' && valueType === 'bigint') {
    problems.push({
      path: `${at}.valueType`,
      message: 'an integer field is a 32-bit column',
      fix: 'use valueType: int, or a string field for larger numbers',
    });
  }
  const longest =
    field.type === 'string' ? longestFormatted(sequence.format ?? '{1}', sequence.max ?? limit) : 0;
  const room = field.maxLength ?? DEFAULT_STRING_LENGTH;
  if (longest > room) {
    problems.push({
      path: `${at}.max`,
      message: `values up to ${sequence.max ?? limit} render ${longest} characters, more than maxLength ${room}`,
      fix: `give a lower max, or maxLength: ${longest}`,
    });
  }
  if (sequence.max !== undefined && sequence.max > limit) {
    problems.push({
      path: `${at}.max`,
      message: `${sequence.max} does not fit valueType ${valueType}`,
      fix: `give at most ${limit}${valueType === 'int' ? ', or valueType: bigint' : ''}`,
    });
  }
  if (sequence.max !== undefined && sequence.max < (sequence.start ?? 1)) {
    problems.push({
      path: `${at}.max`,
      message: 'is below start',
      fix: 'give a max of at least start',
    });
  }
  return {
    name: sequence.name ?? '',
    format: sequence.format ?? '{1}',
    valueType,
    ...(sequence.start !== undefined ? { start: sequence.start } : {}),
    ...(sequence.max !== undefined ? { max: sequence.max } : {}),
  };
}
