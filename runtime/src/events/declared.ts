// The events a change raises, computed from an entity's declarations (the spec's RaisesEvent).
import type { DomainEvent } from './types.js';

export interface EventDeclaration {
  /** `Created` fires when a row is created; `Updated` when one of `fields` changes value. */
  operation: 'Created' | 'Updated';
  /** Entity fields carried in the payload (and, for `Updated`, watched for change). */
  fields: readonly string[];
  /**
   * Event name.
   * @default `<Entity>Created`, or `<Entity><Field...>Updated` (e.g. `ProductPriceUpdated`)
   */
  name?: string;
}

export interface EntityEvents {
  /** Entity type name in PascalCase, e.g. `Product`. */
  entity: string;
  /** Key field of the entity, always copied into the payload. @default 'id' */
  idField?: string;
  declarations: readonly EventDeclaration[];
}

type Row = Record<string, unknown>;

const pascal = (field: string) => field.charAt(0).toUpperCase() + field.slice(1);

/** The name a declaration's events carry. */
export function eventName(spec: EntityEvents, declaration: EventDeclaration): string {
  if (declaration.name) return declaration.name;
  if (declaration.operation === 'Created') return `${spec.entity}Created`;
  return `${spec.entity}${declaration.fields.map(pascal).join('')}Updated`;
}

/** Values are equal for event purposes: same primitive, same instant, or same JSON. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}

function pick(row: Row, fields: readonly string[]): Row {
  const out: Row = {};
  for (const field of fields) out[field] = row[field] ?? null;
  return out;
}

function base(spec: EntityEvents, row: Row) {
  const idField = spec.idField ?? 'id';
  const id = row[idField];
  return { idField, entityId: id === undefined || id === null ? undefined : String(id) };
}

/**
 * The `Created` events of a new row: one per `Created` declaration, carrying the id and the
 * declared fields.
 *
 * @example
 * createdEvents(productEvents, { id, name: 'Desk', price: 120, isDiscontinued: false })
 * // [{ name: 'ProductCreated', payload: { id, name: 'Desk', price: 120 }, ... }]
 */
export function createdEvents(spec: EntityEvents, row: Row): DomainEvent[] {
  const { idField, entityId } = base(spec, row);
  return spec.declarations
    .filter((d) => d.operation === 'Created')
    .map((d) => ({
      name: eventName(spec, d),
      entity: spec.entity,
      ...(entityId === undefined ? {} : { entityId }),
      payload: pick(row, [idField, ...d.fields.filter((f) => f !== idField)]),
    }));
}

/**
 * The `Updated` events of a change: one per `Updated` declaration whose fields changed, carrying
 * the id, the new values and `previous` with the old ones. No change, no event, so an action
 * touching no declared field raises nothing.
 *
 * @example
 * updatedEvents(productEvents, before, { ...before, price: 99 })
 * // [{ name: 'ProductPriceUpdated', payload: { id, price: 99, previous: { price: 120 } }, ... }]
 */
export function updatedEvents(spec: EntityEvents, before: Row, after: Row): DomainEvent[] {
  const { idField, entityId } = base(spec, after);
  return spec.declarations
    .filter((d) => d.operation === 'Updated')
    .filter((d) => d.fields.some((field) => !sameValue(before[field], after[field])))
    .map((d) => ({
      name: eventName(spec, d),
      entity: spec.entity,
      ...(entityId === undefined ? {} : { entityId }),
      payload: {
        ...pick(after, [idField, ...d.fields]),
        previous: pick(before, d.fields),
      },
    }));
}
