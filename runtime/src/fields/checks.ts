// The checks and limits the field kinds (kinds.ts) share: text and number problems, the schema
// keywords of a text value, the largest decimal, the formats of ids, days and instants.
import type { JsonSchema } from '../sql/index.js';
import type { FieldConstraints, SampleContext } from './kind.js';

export const INT32 = { min: -2147483648, max: 2147483647 };
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The largest value `decimal(precision, scale)` holds: 9999999999.99 for (12, 2). */
export function decimalLimit(precision: number, scale: number): number {
  const whole = '9'.repeat(Math.max(precision - scale, 1));
  return Number(scale > 0 ? `${whole}.${'9'.repeat(scale)}` : whole);
}

/** The length and pattern keywords of a text value's schema. */
export function textLimits(c: FieldConstraints): JsonSchema {
  return {
    ...(c.minLength !== undefined ? { minLength: c.minLength } : {}),
    ...(c.maxLength !== undefined ? { maxLength: c.maxLength } : {}),
    ...(c.pattern !== undefined ? { pattern: c.pattern } : {}),
  };
}

/** Why `value` is not text within the length and pattern constraints. */
export function textProblem(value: unknown, c: FieldConstraints): string | undefined {
  if (typeof value !== 'string') return 'not a string';
  if (c.maxLength !== undefined && value.length > c.maxLength) return 'longer than maxLength';
  if (c.minLength !== undefined && value.length < c.minLength) return 'shorter than minLength';
  if (c.pattern !== undefined && !new RegExp(c.pattern, 'u').test(value)) {
    return 'not matching the pattern';
  }
  return undefined;
}

/** Why `value` is not a number within the minimum and maximum. */
export function numberProblem(value: unknown, c: FieldConstraints): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'not a number';
  if (c.minimum !== undefined && value < c.minimum) return 'below minimum';
  if (c.maximum !== undefined && value > c.maximum) return 'above maximum';
  return undefined;
}

// The shape of an address `format: email` asks for, kept simple: one @, a dot in the domain.
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const matches = (pattern: RegExp, message: string) => (value: unknown) =>
  typeof value === 'string' && pattern.test(value) ? undefined : message;

/** The proposed value when it is text, else undefined. */
export const proposedText = (at: SampleContext): string | undefined =>
  typeof at.proposal === 'string' ? at.proposal : undefined;

/** The proposed value when it is a finite number, else undefined. */
export const proposedNumber = (at: SampleContext): number | undefined =>
  typeof at.proposal === 'number' && Number.isFinite(at.proposal) ? at.proposal : undefined;

/**
 * A text value of row `index` no other row shares and no everyday code looks like (`X01`, `X02`...),
 * within the length constraints.
 */
export function distinctText(c: FieldConstraints, index: number): string {
  const width = Math.min(c.maxLength ?? 8, Math.max(c.minLength ?? 0, 3));
  // Under three characters, the row's number in base 36: `1`, `2`... `Z`, `10`.
  if (width < 3) return (index + 1).toString(36).toUpperCase().padStart(width, '0');
  return `X${String(index + 1).padStart(width - 1, '0')}`;
}
