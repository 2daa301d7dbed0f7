// Coerces a filter value from the query string to the DTO property's type; anything that does not
// fit is a 400 naming the field and the accepted form.
import { invalidListQuery } from './errors.js';
import type { ScalarMember } from './members.js';
import { shown } from './names.js';
import type { DateOnlyRange, FilterScalar } from './types.js';

const INTEGER = /^[+-]?\d{1,16}$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?$/;
const UUID = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
// A '+' of an offset arrives as a space when the client did not percent-encode it.
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+\- ]\d{2}:?\d{2})?$/i;

function validDay(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const probe = new Date(Date.UTC(y, m - 1, d));
  return probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
}

function day(text: string): { day: string; start: Date } | undefined {
  const match = DAY.exec(text);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!validDay(y, m, d)) return undefined;
  const start = new Date(Date.UTC(y, m - 1, d));
  start.setUTCFullYear(y);
  return { day: text, start };
}

/** Parses an ISO 8601 instant; no offset means UTC. */
function instant(text: string): Date | undefined {
  const match = INSTANT.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  if (!validDay(Number(y), Number(mo), Number(d))) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return undefined;
  let offset = 'Z';
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? '-' : '+';
    const digits = zone.slice(1).replace(':', '');
    if (Number(digits.slice(0, 2)) > 23 || Number(digits.slice(2)) > 59) return undefined;
    offset = `${sign}${digits.slice(0, 2)}:${digits.slice(2)}`;
  }
  const ms = (frac ?? '').padEnd(3, '0').slice(0, 3);
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}.${ms}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const FORMS: Record<ScalarMember['type'], string> = {
  integer: 'a whole number such as 42',
  decimal: 'a decimal number such as 19.99',
  boolean: 'true, false, 1 or 0',
  uuid: 'a UUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  'date-time': 'an ISO 8601 date-time such as 2024-05-01T10:00:00Z, or a date such as 2024-05-01',
  date: 'an ISO 8601 date such as 2024-05-01',
  enum: 'one of the declared values',
  string: 'text',
};

/** Coerces `text` to the member's type or throws a 400 problem for `parameter`. */
export function coerceValue(member: ScalarMember, text: string, parameter: string): FilterScalar {
  const value = member.type === 'string' ? text : text.trim();
  const expected = member.enumValues
    ? `one of ${member.enumValues.map(String).join(', ')}`
    : FORMS[member.type];
  const fail = () =>
    invalidListQuery(
      `${parameter}: "${shown(text)}" is not a valid value for ${member.property}; ` +
        `expected ${expected}`,
      {
        parameter,
        field: member.property,
        allowed: member.enumValues ? member.enumValues.map(String) : FORMS[member.type],
      },
    );
  switch (member.type) {
    case 'integer': {
      const n = Number(value);
      if (!INTEGER.test(value) || !Number.isSafeInteger(n)) throw fail();
      return n;
    }
    case 'decimal': {
      const n = Number(value);
      if (!DECIMAL.test(value) || !Number.isFinite(n) || value.length > 40) throw fail();
      return n;
    }
    case 'boolean': {
      const lower = value.toLowerCase();
      if (lower === 'true' || lower === '1') return true;
      if (lower === 'false' || lower === '0') return false;
      throw fail();
    }
    case 'uuid': {
      const match = UUID.exec(value);
      if (!match || value.startsWith('{') !== value.endsWith('}')) throw fail();
      return match.slice(1).join('-').toLowerCase();
    }
    case 'date-time': {
      const whole = day(value);
      if (whole) {
        const end = new Date(whole.start.getTime() + 86_400_000);
        return { kind: 'day', day: whole.day, start: whole.start, end } satisfies DateOnlyRange;
      }
      const at = instant(value);
      if (!at) throw fail();
      return at;
    }
    case 'date': {
      if (!day(value)) throw fail();
      return value;
    }
    case 'enum': {
      const values = member.enumValues ?? [];
      const exact = values.find((v) => String(v) === value);
      if (exact !== undefined) return exact;
      const folded = values.filter((v) => String(v).toLowerCase() === value.toLowerCase());
      if (folded.length === 1) return folded[0]!;
      throw fail();
    }
    case 'string':
      return value;
  }
}
