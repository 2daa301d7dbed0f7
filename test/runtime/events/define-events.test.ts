// defineEvents: one declaration list gives the runtime its events and subscribers their types, so
// the names and payloads a subscriber sees are the ones the outbox records. The type assertions
// are checked by `npm run typecheck`; the runtime assertions by mocha.
import { expect } from 'chai';
import { defineEntityTable } from '@slicekit/runtime/crud';
import {
  createdEvents,
  defineEvents,
  updatedEvents,
  type EventsOf,
} from '@slicekit/runtime/events';

class Order {
  id = '';
  status: 'draft' | 'placed' = 'draft';
  note: string | null = null;
  placedOn: Date | null = null;
  total = 0;
}

const orderEvents = defineEvents<Order>()('Order', [
  { operation: 'Created', fields: ['id', 'status', 'total'] },
  { operation: 'Updated', fields: ['status', 'placedOn'] },
  { operation: 'Updated', fields: ['note'], name: 'OrderAnnotated' },
]);
type OrderEvents = EventsOf<typeof orderEvents>;

/** Compiles only when A and B are the same type. */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Same<A, B>) => proof;

same<
  OrderEvents,
  {
    OrderCreated: { id: string; status: 'draft' | 'placed'; total: number };
    OrderStatusPlacedOnUpdated: {
      id: string;
      status: 'draft' | 'placed';
      placedOn: string | null;
      previous: { status: 'draft' | 'placed'; placedOn: string | null };
    };
    OrderAnnotated: { id: string; note: string | null; previous: { note: string | null } };
  }
>(true);

// A field the entity does not have is a type error where the events are declared...
defineEvents<Order>()('Order', [
  // @ts-expect-error: `price` is not a property of Order
  { operation: 'Updated', fields: ['price'] },
]);
// ...and where the table names its stored fields.
defineEntityTable({
  table: 'orders',
  entity: Order,
  // @ts-expect-error: `placed` is not a property of Order
  fields: { id: 'uuid', status: 'string', placed: 'date' },
});

describe('defineEvents', () => {
  const table = defineEntityTable({
    table: 'orders',
    entity: Order,
    fields: { id: 'uuid', status: 'string', note: 'text', placedOn: 'date-time', total: 'integer' },
    events: orderEvents,
  });
  const row = { id: 'o-1', status: 'draft', note: null, placedOn: null, total: 3 };

  it('gives the table the declarations it records on save', () => {
    expect(table.events).to.deep.equal(orderEvents.declarations);
  });

  it('raises events under the names their type has', () => {
    const names: (keyof OrderEvents)[] = [
      ...createdEvents(orderEvents, row),
      ...updatedEvents(orderEvents, row, { ...row, status: 'placed', note: 'rush' }),
    ].map((event) => event.name as keyof OrderEvents);
    expect(names).to.deep.equal(['OrderCreated', 'OrderStatusPlacedOnUpdated', 'OrderAnnotated']);
  });
});
