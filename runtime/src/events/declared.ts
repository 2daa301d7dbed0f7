// The events a change raises, computed from an entity's declarations (the spec's RaisesEvent).
import type { DomainEvent } from './types.js';

export interface EventDeclaration {
  /**
   * `Created` fires when a row is created; `Updated` when one of `fields` changes value; `Deleted`
   * when a row is deleted (or soft-deleted); `Restored` when a soft-deleted row is restored.
   */
  operation: 'Created' | 'Updated' | 'Deleted' | 'Restored';
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

/**
 * The events of an entity, declared once: the table writes them to the outbox on save and
 * `EventsOf` derives their names and payload types from the same list, so a renamed field or a
 * changed type is a type error in the subscribers rather than a drift between two files.
 *
 * @example
 * export const productEvents = defineEvents<Product>()('Product', [
 *   { operation: 'Created', fields: ['id', 'name', 'price'] },
 *   { operation: 'Updated', fields: ['price'] },
 * ]);
 * export type ProductEvents = EventsOf<typeof productEvents>;
 * // { ProductCreated: { id: string; name: string; price: number };
 * //   ProductPriceUpdated: { id: string; price: number; previous: { price: number } } }
 */
export function defineEvents<E>() {
  return <const N extends string, const D extends readonly EventDeclarationOf<E>[]>(
    entity: N,
    declarations: D,
  ): DeclaredEvents<N, E, D> => ({ entity, declarations }) as DeclaredEvents<N, E, D>;
}

/** An event declaration whose fields are properties of the entity `E`. */
export interface EventDeclarationOf<E> extends EventDeclaration {
  readonly fields: readonly (keyof E & string)[];
}

/** What `defineEvents` returns: the runtime's `EntityEvents`, typed by entity and declarations. */
export interface DeclaredEvents<
  N extends string,
  E,
  D extends readonly EventDeclarationOf<E>[],
> extends EntityEvents {
  readonly entity: N;
  readonly declarations: D;
  /** Type-only: the entity the fields belong to. */
  readonly [entityType]?: E;
}
export declare const entityType: unique symbol;

/** How a value reads after the outbox's JSON round trip: a Date becomes its ISO string. */
type Json<T> = T extends Date ? string : T;

type PascalJoin<F> = F extends readonly [infer H extends string, ...infer R]
  ? `${Capitalize<H>}${PascalJoin<R>}`
  : '';

type EventNameOf<N extends string, D> = D extends { name: infer X extends string }
  ? X
  : D extends { operation: infer O extends 'Created' | 'Deleted' | 'Restored' }
    ? `${N}${O}`
    : D extends { fields: infer F }
      ? `${N}${PascalJoin<F>}Updated`
      : never;

type Values<E, F extends PropertyKey> = { [K in F & keyof E]: Json<E[K]> };

type PayloadOf<E, D> = D extends {
  operation: infer O;
  fields: readonly (infer F extends keyof E)[];
}
  ? Values<E, F | ('id' extends keyof E ? 'id' : never)> &
      (O extends 'Updated' ? { previous: Values<E, F> } : unknown)
  : never;

/**
 * The events of a `defineEvents` list by name, with the payload a subscriber receives
 * (`event.payload`): the id, the declared fields as JSON gives them back, and for `Updated`
 * events `previous` with the old values.
 */
export type EventsOf<T> =
  T extends DeclaredEvents<infer N, infer E, infer D>
    ? { [Decl in D[number] as EventNameOf<N, Decl>]: Simplify<PayloadOf<E, Decl>> }
    : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

const pascal = (field: string) => field.charAt(0).toUpperCase() + field.slice(1);

/** The name a declaration's events carry. */
export function eventName(spec: EntityEvents, declaration: EventDeclaration): string {
  if (declaration.name) return declaration.name;
  if (declaration.operation !== 'Updated') return `${spec.entity}${declaration.operation}`;
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
  return rowEvents(spec, 'Created', row);
}

/**
 * The events of one row's `operation` (`Created`, `Deleted`, `Restored`): one per declaration of
 * it, carrying the id and the declared fields as the row holds them.
 *
 * @example
 * rowEvents(productEvents, 'Deleted', row) // [{ name: 'ProductDeleted', payload: { id, name }, ... }]
 */
export function rowEvents(
  spec: EntityEvents,
  operation: 'Created' | 'Deleted' | 'Restored',
  row: Row,
): DomainEvent[] {
  const { idField, entityId } = base(spec, row);
  return spec.declarations
    .filter((d) => d.operation === operation)
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
