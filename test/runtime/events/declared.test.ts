// The events a change raises, computed from the sample Product's declarations.
import { expect } from 'chai';
import {
  createdEvents,
  eventName,
  updatedEvents,
  type EntityEvents,
} from '@slicekit/runtime/events';

const product: EntityEvents = {
  entity: 'Product',
  declarations: [
    { operation: 'Created', fields: ['id', 'name', 'price'] },
    { operation: 'Updated', fields: ['price'] },
    { operation: 'Updated', fields: ['isDiscontinued'] },
  ],
};

const row = {
  id: '5b4c0a52-1d1f-4d8e-9b7e-2f7f0f4f3a10',
  name: 'Desk',
  price: 120,
  isDiscontinued: false,
  updatedBy: null,
};

describe('declared events', () => {
  it('raises ProductCreated with exactly the declared fields', () => {
    expect(createdEvents(product, row)).to.deep.equal([
      {
        name: 'ProductCreated',
        entity: 'Product',
        entityId: row.id,
        payload: { id: row.id, name: 'Desk', price: 120 },
      },
    ]);
  });

  it('raises one Updated event per declared field that changed, with the previous value', () => {
    const events = updatedEvents(product, row, { ...row, price: 99 });
    expect(events).to.deep.equal([
      {
        name: 'ProductPriceUpdated',
        entity: 'Product',
        entityId: row.id,
        payload: { id: row.id, price: 99, previous: { price: 120 } },
      },
    ]);
  });

  it('raises both Updated events when both declared fields changed', () => {
    const names = updatedEvents(product, row, { ...row, price: 1, isDiscontinued: true }).map(
      (e) => e.name,
    );
    expect(names).to.deep.equal(['ProductPriceUpdated', 'ProductIsDiscontinuedUpdated']);
  });

  it('raises nothing for a change to an undeclared field (the Approve action)', () => {
    expect(updatedEvents(product, row, { ...row, updatedBy: 'alice' })).to.deep.equal([]);
  });

  it('raises nothing when a declared field is set to the value it had', () => {
    expect(updatedEvents(product, row, { ...row, isDiscontinued: false })).to.deep.equal([]);
  });

  it('treats two Date objects for the same instant as unchanged', () => {
    const spec: EntityEvents = {
      entity: 'Order',
      declarations: [{ operation: 'Updated', fields: ['dueOn'] }],
    };
    const before = { id: 1, dueOn: new Date('2030-01-01T00:00:00Z') };
    expect(updatedEvents(spec, before, { id: 1, dueOn: new Date(before.dueOn) })).to.deep.equal([]);
    expect(
      updatedEvents(spec, before, { id: 1, dueOn: new Date('2030-01-02T00:00:00Z') }),
    ).to.have.length(1);
  });

  it('uses an explicit name when the declaration gives one', () => {
    expect(
      eventName(product, { operation: 'Updated', fields: ['price'], name: 'ProductRepriced' }),
    ).to.equal('ProductRepriced');
  });
});
