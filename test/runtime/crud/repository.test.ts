// Load / call / save against real databases: audit stamping, a recorded updater, ownership, events
// in the outbox, 404s, exact decimals and date-times read back as instants.
import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  changeEntity,
  defineEntityTable,
  deleteEntity,
  insertEntity,
  loadEntity,
  visibleRows,
} from '@slicekit/runtime/crud';
import { outboxMigration } from '@slicekit/runtime/events';
import { ProblemError } from '@slicekit/runtime/http';
import { describeEachDatabase } from '../../support/services.js';

class Gadget {
  id: string;
  name: string;
  price: number;
  active: boolean;
  madeOn: string | null;
  tags: Record<string, unknown> | null;
  ownedBy = '';
  createdBy = '';
  createdOn = new Date();
  updatedBy: string | null = null;
  updatedOn: Date | null = null;

  constructor(id: string, name: string, price: number) {
    this.id = id;
    this.name = name;
    this.price = price;
    this.active = true;
    this.madeOn = '2024-02-29';
    this.tags = { colour: 'red', sizes: [1, 2] };
  }

  approve(byUser: string): void {
    this.updatedBy = byUser;
  }
}

const fields = {
  id: 'uuid',
  name: 'string',
  price: 'decimal',
  active: 'boolean',
  madeOn: 'date',
  tags: 'json',
} as const;

const gadgets = defineEntityTable({
  table: 'gadgets',
  entity: Gadget,
  fields,
  audited: true,
  owned: true,
  events: [
    { operation: 'Created', fields: ['name', 'price'] },
    { operation: 'Updated', fields: ['price'] },
  ],
});

/** The same table seen without ownership or events, for audit behaviour across callers. */
const sharedGadgets = defineEntityTable({
  table: 'gadgets',
  entity: Gadget,
  fields,
  audited: true,
});

interface OutboxRow {
  name: string;
  entity: string;
  entity_id: string;
  payload: string;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

const ID = '6f1c2f7e-3c1a-4e0b-9a51-2d8c5e4b7a10';

async function createTable(knex: Knex): Promise<void> {
  await knex.schema.createTable('gadgets', (t) => {
    t.uuid('id').primary();
    t.string('name', 150).notNullable();
    t.decimal('price', 12, 2).notNullable();
    t.boolean('active').notNullable();
    t.date('made_on');
    t.json('tags');
    t.string('owned_by').notNullable().defaultTo('');
    t.string('created_by').notNullable();
    t.datetime('created_on', { precision: 3 }).notNullable();
    t.string('updated_by');
    t.datetime('updated_on', { precision: 3 });
  });
}

describeEachDatabase('entity repository', (db) => {
  before(async () => {
    await createTable(db.knex);
    await outboxMigration().up(db.knex);
  });
  const outbox = async () => (await db.knex('slicekit_outbox').orderBy('id')) as OutboxRow[];

  it('inserts a new entity stamped with its creator, as first updater, and owner', async () => {
    const row = await insertEntity(db.knex, gadgets, new Gadget(ID, 'Lamp', 19.99), 'alice');
    const stored = gadgets.fromRow(row);
    expect(stored).to.be.instanceOf(Gadget);
    expect(stored).to.include({ name: 'Lamp', price: 19.99, active: true, createdBy: 'alice' });
    expect(stored).to.include({ ownedBy: 'alice', updatedBy: 'alice' });
    expect(stored.updatedOn?.getTime()).to.equal(stored.createdOn.getTime());
    expect(stored.madeOn).to.equal('2024-02-29');
    expect(stored.tags).to.deep.equal({ colour: 'red', sizes: [1, 2] });
    expect(stored.createdOn).to.be.instanceOf(Date);
    expect(Math.abs(stored.createdOn.getTime() - Date.now())).to.be.below(60_000);
  });

  it('records the declared Created event with the stored values, in the same transaction', async () => {
    const events = await outbox();
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ name: 'GadgetCreated', entity: 'Gadget', entity_id: ID });
    expect(JSON.parse(events[0]!.payload)).to.deep.equal({ id: ID, name: 'Lamp', price: 19.99 });
  });

  it('keeps decimals exact, with no floating-point noise', async () => {
    const row = await changeEntity(db.knex, gadgets, ID, 'alice', (g) => {
      g.price = 1234567890.12;
    });
    expect(gadgets.fromRow(row).price).to.equal(1234567890.12);
  });

  it('answers a write with the row it stored, returned by the write itself where the database can', async () => {
    const id = '0b6f7a52-9d4e-4c3b-8e21-5a7d9c3e1f00';
    const sent: string[] = [];
    const listener = (query: { sql: string }) => void sent.push(query.sql.toLowerCase());
    db.knex.on('query', listener);
    const row = await (async () => {
      await insertEntity(db.knex, sharedGadgets, new Gadget(id, 'Stool', 12.5), 'carol');
      return changeEntity(db.knex, sharedGadgets, id, 'dan', (g) => {
        g.tags = { colour: 'blue' };
      });
    })().finally(() => db.knex.removeListener('query', listener));
    const stored = sharedGadgets.fromRow(row);
    expect(stored).to.include({ price: 12.5, createdBy: 'carol', updatedBy: 'dan' });
    expect(stored.tags).to.deep.equal({ colour: 'blue' });
    const reads = sent.filter((sql) => sql.startsWith('select') && sql.includes('gadgets'));
    // The change's locking read only; MySQL, whose writes return no row, reads each row back too.
    expect(reads).to.have.length(db.dialect === 'mysql' ? 3 : 1);
    await deleteEntity(db.knex, sharedGadgets, id);
  });

  it('records an Updated event only for a declared field that changed, with its previous value', async () => {
    await changeEntity(db.knex, gadgets, ID, 'alice', (g) => {
      g.name = 'Desk lamp';
    });
    const events = await outbox();
    expect(events.map((e) => e.name)).to.deep.equal(['GadgetCreated', 'GadgetPriceUpdated']);
    expect(JSON.parse(events[1]!.payload)).to.deep.equal({
      id: ID,
      price: 1234567890.12,
      previous: { price: 19.99 },
    });
  });

  it('writes no event and no change when the change fails', async () => {
    const thrown = await failure(
      changeEntity(db.knex, gadgets, ID, 'alice', (g) => {
        g.price = 5;
        throw new Error('refused');
      }),
    );
    expect(thrown).to.have.property('message', 'refused');
    expect(await outbox()).to.have.length(2);
    expect(gadgets.fromRow(await visibleRows(db.knex, gadgets, 'alice').first()).price).to.equal(
      1234567890.12,
    );
  });

  it("confines an owned table to its owner: another caller's row is 404 for load, change and delete", async () => {
    expect(await failure(loadEntity(db.knex, gadgets, ID, 'bob'))).to.have.property('status', 404);
    expect(await failure(loadEntity(db.knex, gadgets, ID))).to.have.property('status', 404);
    const changed = await failure(
      changeEntity(db.knex, gadgets, ID, 'bob', (g) => {
        g.price = 1;
      }),
    );
    expect(changed).to.be.instanceOf(ProblemError).with.property('status', 404);
    expect(await failure(deleteEntity(db.knex, gadgets, ID, 'bob'))).to.have.property(
      'status',
      404,
    );
    expect(await visibleRows(db.knex, gadgets, 'bob')).to.have.length(0);
    const mine = await loadEntity(db.knex, gadgets, ID, 'alice');
    expect(mine).to.include({ ownedBy: 'alice', price: 1234567890.12 });
  });

  it('stamps the principal as updater when a change records none', async () => {
    const row = await changeEntity(db.knex, sharedGadgets, ID, 'bob', (g) => {
      g.active = false;
    });
    const stored = gadgets.fromRow(row);
    expect(stored).to.include({ active: false, updatedBy: 'bob', createdBy: 'alice' });
    expect(stored.updatedOn).to.be.instanceOf(Date);
  });

  it('keeps the updater a change records, even the one already stored', async () => {
    await changeEntity(db.knex, gadgets, ID, 'alice', (g) => g.approve('carol'));
    const row = await changeEntity(db.knex, gadgets, ID, 'alice', (g) => g.approve('carol'));
    expect(gadgets.fromRow(row)).to.include({ updatedBy: 'carol', ownedBy: 'alice' });
  });

  it('gives an Updated event the previous value of a JSON field the method changed in place', async () => {
    // Same rows, with the tags' changes raising an event.
    const tagged = defineEntityTable({
      table: 'gadgets',
      entity: Gadget,
      fields,
      audited: true,
      owned: true,
      events: [{ operation: 'Updated', fields: ['tags'] }],
    });
    const before = (await outbox()).length;
    await changeEntity(db.knex, tagged, ID, 'alice', (g) => {
      (g.tags!.sizes as number[]).push(3);
    });
    const events = await outbox();
    expect(events).to.have.length(before + 1);
    expect(JSON.parse(events.at(-1)!.payload)).to.deep.equal({
      id: ID,
      tags: { colour: 'red', sizes: [1, 2, 3] },
      previous: { tags: { colour: 'red', sizes: [1, 2] } },
    });
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const unknown = await failure(loadEntity(db.knex, gadgets, missing, 'alice'));
    expect(unknown).to.be.instanceOf(ProblemError).with.property('status', 404);
    const malformed = await failure(changeEntity(db.knex, gadgets, 'nope', '', () => undefined));
    expect(malformed).to.be.instanceOf(ProblemError).with.property('status', 400);
    const gone = await failure(deleteEntity(db.knex, gadgets, missing, 'alice'));
    expect(gone).to.be.instanceOf(ProblemError).with.property('status', 404);
  });

  it('deletes a row once, for its owner', async () => {
    await deleteEntity(db.knex, gadgets, ID, 'alice');
    expect(await db.knex('gadgets').count({ n: '*' }).first()).to.satisfy(
      (r: { n: number | string }) => Number(r.n) === 0,
    );
  });
});
