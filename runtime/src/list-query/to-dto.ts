// Row -> DTO: camelCase properties, decimals as numbers, booleans as booleans, date-times as ISO
// 8601 UTC, JSON parsed; the same output on PostgreSQL, MySQL and SQLite (sql/values.ts reads
// each stored value, as the CRUD repository does).
import { readJson, readStored } from '../sql/index.js';
import type { Member, ScalarType, SubMember } from './members.js';

/** Row key under which the list query selects a relation's sub-member. */
export const relationKey = (property: string, sub: string): string => `${property}__${sub}`;
/** Row key holding the joined row's key (null when no related row exists). */
export const relationPresentKey = (property: string): string => `${property}__`;
/** Row key under which a page's child rows are attached before mapping. */
export const collectionKey = (property: string): string => `${property}__items`;

/** A value as the DTO carries it in JSON: date-times as ISO 8601 UTC text. */
function scalar(type: ScalarType | 'opaque', value: unknown): unknown {
  const read = readStored(type === 'opaque' ? 'json' : type, value);
  return read instanceof Date ? read.toISOString() : read;
}

type Reader = (value: unknown) => unknown;

/** 10000-01-01T00:00:00Z in epoch milliseconds: below it an instant has a four-digit year. */
const YEAR_10000 = 253_402_300_800_000;

/** '00'..'99' and '000'..'999': the fields of an instant, looked up rather than formatted. */
const TWO = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * `new Date(ms).toISOString()` for whole epoch milliseconds from 1970 to 9999 (what SQLite
 * stores), by arithmetic: the day's civil date by Howard Hinnant's `civil_from_days`. Past the
 * day every quantity is a small non-negative integer, so `| 0` floors it in integer arithmetic.
 */
function isoInstant(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const z = days + 719_468;
  const era = (z / 146_097) | 0;
  const dayOfEra = z - era * 146_097;
  const yearOfEra =
    ((dayOfEra - ((dayOfEra / 1460) | 0) + ((dayOfEra / 36_524) | 0) - ((dayOfEra / 146_096) | 0)) /
      365) |
    0;
  const dayOfYear = dayOfEra - (365 * yearOfEra + ((yearOfEra / 4) | 0) - ((yearOfEra / 100) | 0));
  const shifted = ((5 * dayOfYear + 2) / 153) | 0;
  const day = dayOfYear - (((153 * shifted + 2) / 5) | 0) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const msOfDay = ms - days * 86_400_000;
  const secondsOfDay = (msOfDay / 1000) | 0;
  const hours = (secondsOfDay / 3600) | 0;
  const minutes = ((secondsOfDay - hours * 3600) / 60) | 0;
  const seconds = secondsOfDay - hours * 3600 - minutes * 60;
  const y = year < 1000 ? String(year).padStart(4, '0') : `${year}`;
  return `${y}-${TWO[month]}-${TWO[day]}T${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[msOfDay - secondsOfDay * 1000]}Z`;
}

/**
 * `scalar` for one type, chosen once per member: the values each driver hands back most often
 * (text, numbers, SQLite's epoch milliseconds) are answered without the general reader, the
 * rest go through it, so the output is `scalar`'s.
 */
function readerOf(type: ScalarType | 'opaque'): Reader {
  const general: Reader = (value) => scalar(type, value);
  switch (type) {
    case 'string':
    case 'uuid':
    case 'enum':
      return (value) => (typeof value === 'string' ? value : general(value));
    case 'integer':
    case 'decimal':
      return (value) => (typeof value === 'number' ? value : general(value));
    case 'date-time':
      return (value) =>
        typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < YEAR_10000
          ? isoInstant(value)
          : general(value);
    default:
      return general;
  }
}

function subObject(members: readonly SubMember[], read: (m: SubMember) => unknown): object {
  const out: Record<string, unknown> = {};
  for (const m of members) out[m.property] = scalar(m.type, read(m));
  return out;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSON document cut down to the keys of `members` (`select=meta.label`), or each object element
 * of an array; values stay as stored, a key the document lacks stays absent, and anything else
 * (null, a scalar, a non-object element) is answered as stored.
 */
function picked(value: unknown, members: readonly SubMember[]): unknown {
  const cut = (doc: unknown) => {
    if (!isObject(doc)) return doc;
    const out: Record<string, unknown> = {};
    for (const m of members) if (Object.hasOwn(doc, m.source)) out[m.property] = doc[m.source];
    return out;
  };
  return Array.isArray(value) ? value.map(cut) : cut(value);
}

type Writer = (dto: Record<string, unknown>, row: Record<string, unknown>) => void;

/** What one member writes into the DTO from its row. */
function writerOf(member: Member): Writer {
  const to = member.property;
  switch (member.kind) {
    case 'scalar': {
      const read = readerOf(member.type);
      const column = member.column;
      return (dto, row) => {
        dto[to] = read(row[column]);
      };
    }
    case 'bytes':
      return (dto, row) => {
        const value = row[member.column];
        dto[to] = Buffer.isBuffer(value) ? value.toString('base64') : (value ?? null);
      };
    case 'json':
      return (dto, row) => {
        const value = readJson(row[member.column]);
        dto[to] = member.picked ? picked(value, member.members) : value;
      };
    case 'relation': {
      const presentKey = relationPresentKey(member.property);
      const keys = member.members.map((m) => relationKey(member.property, m.property));
      const reads = member.members.map((m) => readerOf(m.type));
      return (dto, row) => {
        const present = row[presentKey];
        if (present === null || present === undefined) {
          dto[to] = null;
          return;
        }
        const out: Record<string, unknown> = {};
        member.members.forEach((m, i) => (out[m.property] = reads[i]!(row[keys[i]!])));
        dto[to] = out;
      };
    }
    case 'collection': {
      const itemsKey = collectionKey(member.property);
      return (dto, row) => {
        const items = (row[itemsKey] ?? []) as Record<string, unknown>[];
        dto[to] = member.valueColumn
          ? items.map((item) => scalar(member.valueType ?? 'opaque', item[member.valueColumn!]))
          : items.map((item) => subObject(member.members, (m) => item[m.source]));
      };
    }
    case 'computed':
      return member.value
        ? (dto, row) => {
            dto[to] = member.value!(row);
          }
        : () => undefined;
  }
}

/** The writers of a list of members, made once per list (a resource's, or a selection's). */
const writers = new WeakMap<readonly Member[], readonly Writer[]>();

/** Maps one row to the DTO, member by member. */
export function rowToDto(members: readonly Member[], row: Record<string, unknown>): unknown {
  let write = writers.get(members);
  if (!write) {
    write = members.map(writerOf);
    writers.set(members, write);
  }
  const dto: Record<string, unknown> = {};
  for (const w of write) w(dto, row);
  return dto;
}
