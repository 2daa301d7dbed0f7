// Stored values, read back the same way on PostgreSQL, MySQL and SQLite: the one reader the CRUD
// repository (rows -> entities) and the list query (rows -> DTOs) share.

/** How a field's values travel: what the list query coerces filters to and how rows are read. */
export type ValueType =
  'string' | 'integer' | 'decimal' | 'boolean' | 'uuid' | 'date' | 'date-time' | 'enum' | 'json';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * The calendar day a driver meant by the Date it built for a DATE column. node-postgres (and
 * mysql2 with its default `timezone: 'local'`) build local midnight; mysql2 with `timezone: 'Z'`
 * builds UTC midnight, which is the previous day's afternoon west of UTC. Local midnight reads in
 * local time, UTC midnight in UTC, so the day is the stored one whatever the process time zone.
 */
export function calendarDay(value: Date): string {
  const localMidnight =
    value.getHours() === 0 &&
    value.getMinutes() === 0 &&
    value.getSeconds() === 0 &&
    value.getMilliseconds() === 0;
  const utc = !localMidnight && value.getTime() % 86_400_000 === 0;
  const year = utc ? value.getUTCFullYear() : value.getFullYear();
  const month = utc ? value.getUTCMonth() : value.getMonth();
  const day = utc ? value.getUTCDate() : value.getDate();
  return `${pad(year, 4)}-${pad(month + 1)}-${pad(day)}`;
}

/** A DATE column's value as `YYYY-MM-DD`: a driver's Date, SQLite's epoch ms or text. */
function day(value: unknown): unknown {
  if (value instanceof Date) return calendarDay(value);
  if (typeof value === 'number') return new Date(value).toISOString().slice(0, 10);
  if (typeof value === 'string') return value.slice(0, 10);
  return value;
}

/**
 * A date-time column's value as a Date. PostgreSQL and mysql2 give Dates; SQLite gives epoch
 * milliseconds (what Knex writes for a Date) or text such as `CURRENT_TIMESTAMP`'s
 * `2024-05-01 10:00:00`, which is UTC. Anything unreadable comes back as it was.
 */
function instant(value: unknown): unknown {
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number' || typeof value === 'bigint') date = new Date(Number(value));
  else if (typeof value === 'string') {
    const text = value.includes('T') || value.length <= 10 ? value : value.replace(' ', 'T');
    date = new Date(/(?:Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`);
  }
  return date && !Number.isNaN(date.getTime()) ? date : value;
}

/** A JSON column's document: parsed from text or bytes; text that is not JSON stays text. */
export function readJson(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A stored value as JavaScript: numbers for integers and decimals (PostgreSQL and MySQL hand
 * DECIMAL back as text; `Number()` of it is the stored value), booleans from 0/1 or t/f, Dates for
 * date-times, `YYYY-MM-DD` for dates, parsed JSON, text for bytes; null for null.
 *
 * @example
 * readStored('decimal', '19.99') // 19.99
 */
export function readStored(type: ValueType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
    case 'decimal':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return typeof value === 'string'
        ? value === '1' || value === 't' || value === 'true'
        : Boolean(Number(value));
    case 'date-time':
      return instant(value);
    case 'date':
      return day(value);
    case 'enum':
      if (typeof value === 'bigint') return Number(value);
      return Buffer.isBuffer(value) ? value.toString('utf8') : value;
    case 'json':
      return readJson(value);
    case 'uuid':
    case 'string':
      return Buffer.isBuffer(value) ? value.toString('utf8') : value;
  }
}

/**
 * A value as it is written: JSON goes in as text everywhere (pg would otherwise write a JS array
 * as a PostgreSQL array), a missing value as null.
 */
export function writeStored(type: ValueType, value: unknown): unknown {
  if (value === undefined) return null;
  if (type === 'json' && value !== null) return JSON.stringify(value);
  return value;
}
