// Values as data for the partials that write them: `entity/value` (a value given to an entity
// property) and `entity/column-value` (a value as a Knex insert takes it). One key of each object
// says what kind of expression the partial writes.
import type { EntityModel, FieldModel } from '../../model/types.js';

/** What templates/entity/partials/value.hbs writes. */
export type EntityValue =
  | { param: string; fallback?: EntityValue }
  | { current: string }
  | { uuid: true }
  | { now: true }
  | { today: true }
  | { date: string }
  | { step: string; by: number; orZero: boolean }
  | { value: unknown };

/** What templates/entity/partials/column-value.hbs writes. */
export type ColumnValue =
  | { variable: string }
  | { next: string; sequence: string }
  | { pick: string; index: number }
  | { json: true; value: unknown }
  | { date: string }
  | { value: unknown };

/** A known value on the entity: date-times are `Date`s there. */
export function entityValue(field: Pick<FieldModel, 'type'>, value: unknown): EntityValue {
  if (field.type === 'date-time' && typeof value === 'string') return { date: value };
  return { value };
}

/** A known value as the column value a Knex insert takes. */
export function columnValue(f: Pick<FieldModel, 'type'>, value: unknown): ColumnValue {
  if (value === null || value === undefined) return { value: null };
  if (f.type === 'json') return { json: true, value };
  if (f.type === 'date-time') return { date: String(value) };
  return { value };
}

/** A cell of a row to insert (templates/entity/partials/row.hbs). */
export interface Cell {
  column: string;
  value: ColumnValue;
}

/** Fields every row must hold a value of its own: the reference-data key and unique fields. */
export function distinctFields(model: EntityModel): ReadonlySet<FieldModel> {
  return new Set([...(model.referenceData?.key ?? []), ...model.fields.filter((f) => f.unique)]);
}
