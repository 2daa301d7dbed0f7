// The values of an entity before its method runs, for the `previous` of the events a change
// raises, without reading the stored row into an entity a second time.
import { fieldKinds } from '../fields/index.js';
import type { EntityTable } from './table.js';

type Row = Record<string, unknown>;

/**
 * A copy of the values of `entity`, just loaded, that its method cannot change: a JSON document,
 * which a method may change in place, is copied deeply (the PostgreSQL and MySQL drivers hand over
 * the parsed document, which the entity holds as it is); every other value a method replaces
 * rather than changes.
 */
export function valuesBefore(table: EntityTable<unknown>, entity: Row): Row {
  const before: Row = { ...entity };
  for (const field of table.fields) {
    if (fieldKinds[field.kind].value === 'json' && typeof before[field.property] === 'object') {
      before[field.property] = structuredClone(before[field.property]);
    }
  }
  return before;
}
