// Row -> DTO: camelCase properties, decimals as numbers, booleans as booleans, date-times as ISO
// 8601 UTC, JSON parsed; the same output on PostgreSQL, MySQL and SQLite.
import type { Member, ScalarType, SubMember } from './members.js';

/** Row key under which the list query selects a relation's sub-member. */
export const relationKey = (property: string, sub: string): string => `${property}__${sub}`;
/** Row key holding the joined row's key (null when no related row exists). */
export const relationPresentKey = (property: string): string => `${property}__`;
/** Row key under which a page's child rows are attached before mapping. */
export const collectionKey = (property: string): string => `${property}__items`;

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
function dateOnly(value: unknown): unknown {
  if (value instanceof Date) return calendarDay(value);
  if (typeof value === 'number') return new Date(value).toISOString().slice(0, 10);
  if (typeof value === 'string') return value.slice(0, 10);
  return value;
}

/**
 * PostgreSQL and mysql2 give Date objects; SQLite gives epoch milliseconds (what Knex writes for a
 * Date) or text such as `CURRENT_TIMESTAMP`'s `2024-05-01 10:00:00`, which is UTC.
 */
function dateTime(value: unknown): unknown {
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number' || typeof value === 'bigint') date = new Date(Number(value));
  else if (typeof value === 'string') {
    const text = value.includes('T') || value.length <= 10 ? value : value.replace(' ', 'T');
    const zoned = /(?:Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`;
    date = new Date(zoned);
  }
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : value;
}

function scalar(type: ScalarType | 'opaque', value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
    case 'decimal':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      if (typeof value === 'string') return value === '1' || value === 't' || value === 'true';
      return Boolean(Number(value));
    case 'date-time':
      return dateTime(value);
    case 'date':
      return dateOnly(value);
    case 'enum':
      return typeof value === 'bigint' ? Number(value) : value;
    case 'uuid':
    case 'string':
      return Buffer.isBuffer(value) ? value.toString('utf8') : value;
    case 'opaque':
      return json(value);
  }
}

function json(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function subObject(members: readonly SubMember[], read: (m: SubMember) => unknown): object {
  const out: Record<string, unknown> = {};
  for (const m of members) out[m.property] = scalar(m.type, read(m));
  return out;
}

/** Maps one row to the DTO, member by member. */
export function rowToDto(members: readonly Member[], row: Record<string, unknown>): unknown {
  const dto: Record<string, unknown> = {};
  for (const member of members) {
    switch (member.kind) {
      case 'scalar':
        dto[member.property] = scalar(member.type, row[member.column]);
        break;
      case 'bytes': {
        const value = row[member.column];
        dto[member.property] = Buffer.isBuffer(value) ? value.toString('base64') : (value ?? null);
        break;
      }
      case 'json':
        dto[member.property] = json(row[member.column]);
        break;
      case 'relation': {
        const present = row[relationPresentKey(member.property)];
        dto[member.property] =
          present === null || present === undefined
            ? null
            : subObject(member.members, (m) => row[relationKey(member.property, m.property)]);
        break;
      }
      case 'collection': {
        const items = (row[collectionKey(member.property)] ?? []) as Record<string, unknown>[];
        dto[member.property] = member.valueColumn
          ? items.map((item) => scalar(member.valueType ?? 'opaque', item[member.valueColumn!]))
          : items.map((item) => subObject(member.members, (m) => item[m.source]));
        break;
      }
      case 'computed':
        if (member.value) dto[member.property] = member.value(row);
        break;
    }
  }
  return dto;
}
