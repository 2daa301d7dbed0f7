// Identities and concurrent changes against real databases: owners compare byte for byte whatever
// the collation, a load-change-save holds its row until it commits so no answered change is lost,
// and entity tags make a stale change or delete fail with 412.
import { expect } from 'chai';
import express from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import {
  callerRows,
  changeEntity,
  defineEntityTable,
  deleteEntity,
  insertEntity,
  loadRow,
  visibleRows,
} from '@slicekit/runtime/crud';
import { outboxMigration } from '@slicekit/runtime/events';
import { entityTagOf, ProblemError } from '@slicekit/runtime/http';
import { defineListResource, listHandler } from '@slicekit/runtime/list-query';
import { describeEachDatabase } from '../../support/services.js';

class Lamp {
  id: string;
  name: string;
  price: number;
  retired = false;
  ownedBy = '';
  createdBy = '';
  createdOn = new Date();
  updatedBy = '';
  updatedOn = new Date();

  constructor(id: string, name: string, price: number) {
    this.id = id;
    this.name = name;
    this.price = price;
  }
}

const lamps = defineEntityTable({
  table: 'lamps',
  entity: Lamp,
  fields: { id: 'uuid', name: 'string', price: 'decimal', retired: 'boolean' },
  audited: true,
  owned: true,
  events: [
    { operation: 'Updated', fields: ['price'] },
    { operation: 'Updated', fields: ['retired'] },
  ],
});

const lampResource = defineListResource({
  table: 'lamps',
  audited: true,
  dto: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      price: { type: 'number' },
      createdOn: { type: 'string', format: 'date-time' },
    },
  },
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

const idOf = (n: number) => `6f1c2f7e-3c1a-4e0b-9a51-${String(n).padStart(12, '0')}`;

async function createTable(knex: Knex): Promise<void> {
  await knex.schema.createTable('lamps', (t) => {
    t.uuid('id').primary();
    t.string('name', 150).notNullable();
    t.decimal('price', 12, 2).notNullable();
    t.boolean('retired').notNullable();
    t.string('owned_by', 255).notNullable().defaultTo('');
    t.string('created_by', 255).notNullable();
    t.datetime('created_on', { precision: 3 }).notNullable();
    t.string('updated_by', 255).notNullable();
    t.datetime('updated_on', { precision: 3 }).notNullable();
    t.index(['owned_by']);
  });
}

describeEachDatabase('owners, row locks and entity tags', (db) => {
  before(async () => {
    await createTable(db.knex);
    await outboxMigration().up(db.knex);
    await insertEntity(db.knex, lamps, new Lamp(idOf(1), 'Alice lamp', 10), 'alice');
    await insertEntity(db.knex, lamps, new Lamp(idOf(2), 'Anonymous lamp', 20), '');
  });

  describe('owners compare exactly', () => {
    const lookalikes = ['ALICE', 'Alice', 'alice ', ' alice', 'alicé', 'alıce'];

    it("keeps alice's row from every look-alike principal, for load, change, delete and list", async () => {
      for (const principal of lookalikes) {
        expect(await visibleRows(db.knex, lamps, principal), principal).to.have.length(0);
        expect(await failure(loadRow(db.knex, lamps, idOf(1), principal))).to.have.property(
          'status',
          404,
        );
        const changed = await failure(
          changeEntity(db.knex, lamps, idOf(1), principal, (lamp) => {
            lamp.price = 1;
          }),
        );
        expect(changed, principal).to.be.instanceOf(ProblemError).with.property('status', 404);
        expect(await failure(deleteEntity(db.knex, lamps, idOf(1), principal))).to.have.property(
          'status',
          404,
        );
      }
      const row = lamps.fromRow(await loadRow(db.knex, lamps, idOf(1), 'alice'));
      expect(row).to.include({ price: 10, ownedBy: 'alice' });
    });

    it('keeps the anonymous rows from a principal of blanks', async () => {
      for (const principal of [' ', '  ', '\t']) {
        expect(
          await visibleRows(db.knex, lamps, principal),
          JSON.stringify(principal),
        ).to.have.length(0);
      }
      expect(await visibleRows(db.knex, lamps, '')).to.have.length(1);
    });

    it('lists and counts only the exact owner’s rows', async () => {
      const app = express();
      app.use((req, _res, next) => {
        // URI-encoded: HTTP trims the blanks around a header value.
        const user = req.header('x-user');
        if (user !== undefined) req.user = { id: decodeURIComponent(user) };
        next();
      });
      app.get('/lamps', listHandler(lampResource, db.knex, { scope: callerRows(lamps) }));
      const mine = await request(app).get('/lamps').set('x-user', 'alice');
      expect(mine.body.totalItemCount).to.equal(1);
      for (const principal of lookalikes) {
        const res = await request(app).get('/lamps').set('x-user', encodeURIComponent(principal));
        expect(res.status).to.equal(200);
        expect(res.body.totalItemCount, principal).to.equal(0);
        expect(res.body.items).to.deep.equal([]);
      }
    });
  });

  describe('concurrent changes of one row', () => {
    const ID = idOf(3);
    before(async () => {
      await insertEntity(db.knex, lamps, new Lamp(ID, 'Busy lamp', 100), 'carol');
    });

    it('keeps every answered change and records each Updated event with the true previous value', async () => {
      const prices = Array.from({ length: 20 }, (_, i) => i + 1);
      const outcomes = await Promise.allSettled([
        ...prices.map((price) =>
          changeEntity(db.knex, lamps, ID, 'carol', (lamp) => {
            lamp.price = price;
          }),
        ),
        changeEntity(db.knex, lamps, ID, 'carol', (lamp) => {
          lamp.retired = true;
        }),
      ]);
      expect(outcomes.filter((o) => o.status === 'rejected')).to.deep.equal([]);
      const final = lamps.fromRow(await loadRow(db.knex, lamps, ID, 'carol'));
      expect(final.retired).to.equal(true);

      const events = (await db
        .knex('slicekit_outbox')
        .where({ entity_id: ID })
        .orderBy('id')
        .select('name', 'payload')) as { name: string; payload: string }[];
      expect(events.filter((e) => e.name === 'LampRetiredUpdated')).to.have.length(1);
      // Each price change saw the one before it: previous values chain from 100 to the final price.
      const chain = events
        .filter((e) => e.name === 'LampPriceUpdated')
        .map((e) => JSON.parse(e.payload) as { price: number; previous: { price: number } });
      expect(chain).to.have.length(20);
      let previous = 100;
      for (const event of chain) {
        expect(event.previous.price).to.equal(previous);
        previous = event.price;
      }
      expect(final.price).to.equal(previous);
    });
  });

  describe('entity tags', () => {
    const ID = idOf(4);
    before(async () => {
      await insertEntity(db.knex, lamps, new Lamp(ID, 'Tagged lamp', 5), 'dan');
    });

    it('tags a loaded row the same on every load, and differently once it changed', async () => {
      const first = entityTagOf(await loadRow(db.knex, lamps, ID, 'dan'));
      expect(first).to.match(/^"[\w-]{22}"$/);
      expect(entityTagOf(await loadRow(db.knex, lamps, ID, 'dan'))).to.equal(first);
      const changed = await changeEntity(db.knex, lamps, ID, 'dan', (lamp) => {
        lamp.price = 6;
      });
      expect(entityTagOf(changed))
        .to.match(/^"[\w-]{22}"$/)
        .and.not.equal(first);
      expect(entityTagOf(await loadRow(db.knex, lamps, ID, 'dan'))).to.equal(entityTagOf(changed));
    });

    it('applies a change whose If-Match holds the current tag (or *), and refuses a stale one with 412', async () => {
      const current = entityTagOf(await loadRow(db.knex, lamps, ID, 'dan'))!;
      const stale = await failure(
        changeEntity(db.knex, lamps, ID, { principal: 'dan', ifMatch: '"old"' }, (lamp) => {
          lamp.price = 7;
        }),
      );
      expect(stale).to.be.instanceOf(ProblemError).with.property('status', 412);
      expect((stale as ProblemError).toProblem()).to.include({ code: 'crud.precondition_failed' });
      // A weak tag never matches for a change (RFC 9110 strong comparison).
      const weak = await failure(
        changeEntity(db.knex, lamps, ID, { principal: 'dan', ifMatch: `W/${current}` }, () => {}),
      );
      expect(weak).to.have.property('status', 412);
      expect(lamps.fromRow(await loadRow(db.knex, lamps, ID, 'dan')).price).to.equal(6);

      const applied = await changeEntity(
        db.knex,
        lamps,
        ID,
        { principal: 'dan', ifMatch: `"x", ${current}` },
        (lamp) => {
          lamp.price = 7;
        },
      );
      expect(lamps.fromRow(applied).price).to.equal(7);
      const any = await changeEntity(
        db.knex,
        lamps,
        ID,
        { principal: 'dan', ifMatch: '*' },
        (l) => {
          l.price = 8;
        },
      );
      expect(lamps.fromRow(any).price).to.equal(8);
    });

    it('refuses a delete whose If-Match is stale with 412 and keeps the row; deletes with the current tag', async () => {
      const refused = await failure(
        deleteEntity(db.knex, lamps, ID, { principal: 'dan', ifMatch: '"old"' }),
      );
      expect(refused).to.be.instanceOf(ProblemError).with.property('status', 412);
      const current = entityTagOf(await loadRow(db.knex, lamps, ID, 'dan'))!;
      await deleteEntity(db.knex, lamps, ID, { principal: 'dan', ifMatch: current });
      expect(await failure(loadRow(db.knex, lamps, ID, 'dan'))).to.have.property('status', 404);
    });

    it('answers 404, not 412, for a row the caller cannot see, whatever If-Match says', async () => {
      const other = await failure(
        changeEntity(db.knex, lamps, idOf(1), { principal: 'dan', ifMatch: '"old"' }, () => {}),
      );
      expect(other).to.have.property('status', 404);
    });
  });
});
