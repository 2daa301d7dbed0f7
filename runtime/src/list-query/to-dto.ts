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
      case 'json': {
        const value = readJson(row[member.column]);
        dto[member.property] = member.picked ? picked(value, member.members) : value;
        break;
      }
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
