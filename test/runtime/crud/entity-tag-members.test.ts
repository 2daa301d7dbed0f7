// Entity tags of a DTO that nests rows (a relation, a collection, a many-to-many), against real
// databases, over HTTP as a generated slice answers: the ETag a GET sends changes when a member
// changes, so If-None-Match revalidates only an unchanged answer; If-Match on a change accepts the
// tag the GET sent and refuses (412) one a member made stale since (the row's own tags:
// concurrency.test.ts).
import { expect } from 'chai';
import express from 'express';
import type { Knex } from 'knex';
import request from 'supertest';
import {
  changeEntity,
  defineEntityTable,
  deleteEntity,
  insertEntity,
  loadRow,
  sendEntity,
  sliceRoute,
  type Caller,
} from '@slicekit/runtime/crud';
import { defineListResource, loadRelated } from '@slicekit/runtime/list-query';
import { describeEachDatabase } from '../../support/services.js';

class Crate {
  id = '';
  note = '';
  labelIds: string[] = [];
}

class Bottle {
  constructor(
    public id: string,
    public crateId: string,
    public sku: string,
    public price: number,
  ) {}
}

const crateResource = defineListResource({
  table: 'tag_crates',
  dto: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      note: { type: 'string' },
      bottles: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', format: 'uuid' },
            sku: { type: 'string' },
            price: { type: 'number' },
          },
        },
      },
      labels: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
        },
      },
    },
  },
  columns: {
    bottles: { collection: { table: 'tag_bottles', foreignKey: 'crate_id' } },
    labels: {
      collection: {
        table: 'tag_labels',
        through: { table: 'tag_crate_labels', localKey: 'crate_id', foreignKey: 'label_id' },
      },
    },
  },
});

const labels = defineEntityTable({
  table: 'tag_labels',
  entity: class Label {
    id = '';
    name = '';
  },
  fields: { id: 'uuid', name: 'string' },
});

const crates = defineEntityTable({
  table: 'tag_crates',
  entity: Crate,
  fields: { id: 'uuid', note: 'string' },
  links: {
    labelIds: {
      to: () => labels,
      joinTable: 'tag_crate_labels',
      localKey: 'crate_id',
      foreignKey: 'label_id',
    },
  },
  dto: crateResource,
});

const bottles = defineEntityTable({
  table: 'tag_bottles',
  entity: Bottle,
  fields: { id: 'uuid', crateId: 'reference', sku: 'string', price: 'decimal' },
  references: { crateId: { to: () => crates, onDelete: 'cascade' } },
});

const idOf = (n: number) => `5d0c6a3e-2b7f-4c1e-8f3a-${String(n).padStart(12, '0')}`;
const CRATE = idOf(1);
const LABEL = idOf(2);

async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('tag_crates', (t) => {
    t.uuid('id').primary();
    t.string('note', 100).notNullable();
  });
  await knex.schema.createTable('tag_labels', (t) => {
    t.uuid('id').primary();
    t.string('name', 100).notNullable();
  });
  await knex.schema.createTable('tag_crate_labels', (t) => {
    t.uuid('crate_id').notNullable().references('id').inTable('tag_crates').onDelete('CASCADE');
    t.uuid('label_id').notNullable().references('id').inTable('tag_labels').onDelete('CASCADE');
    t.primary(['crate_id', 'label_id']);
  });
  await knex.schema.createTable('tag_bottles', (t) => {
    t.uuid('id').primary();
    t.uuid('crate_id').notNullable().references('id').inTable('tag_crates').onDelete('CASCADE');
    t.string('sku', 40).notNullable();
    t.decimal('price', 12, 2).notNullable();
  });
}

/** The routes of a slice with relations, as the generated handlers and routes answer. */
function crateApp(knex: Knex): express.Express {
  const toDto = async (row: Record<string, unknown>, caller: Caller) =>
    crateResource.toDto(await loadRelated(knex, crateResource, row, caller));
  const app = express();
  app.use(express.json());
  app.get(
    '/crates/:id',
    sliceRoute(async ({ id, caller }, res) => {
      sendEntity(res, await toDto(await loadRow(knex, crates, id, caller), caller));
    }),
  );
  app.put(
    '/crates/:id',
    sliceRoute(async ({ id, caller, req }, res) => {
      const row = await changeEntity(knex, crates, id, caller, (crate) => {
        crate.note = String((req.body as { note: unknown }).note);
      });
      sendEntity(res, await toDto(row, caller));
    }),
  );
  app.delete(
    '/crates/:id',
    sliceRoute(async ({ id, caller }, res) => {
      await deleteEntity(knex, crates, id, caller);
      res.status(204).end();
    }),
  );
  return app;
}

describeEachDatabase('entity tags of a DTO with members', (db) => {
  let app: express.Express;
  let bottle = 10;
  /** Someone else adds a bottle to the crate. */
  const addBottle = (price: number) =>
    insertEntity(db.knex, bottles, new Bottle(idOf(bottle++), CRATE, 'B', price), 'someone');
  const etagOf = async (): Promise<string> => {
    const res = await request(app).get(`/crates/${CRATE}`).expect(200);
    return res.headers.etag as string;
  };

  before(async () => {
    await createTables(db.knex);
    await db.knex('tag_labels').insert({ id: LABEL, name: 'fragile' });
    await insertEntity(db.knex, crates, Object.assign(new Crate(), { id: CRATE, note: 'a' }), '');
    await addBottle(12.5);
    app = crateApp(db.knex);
  });

  it('sends an ETag that changes with a member, so If-None-Match answers 304 only while none did', async () => {
    const first = await etagOf();
    expect(first).to.match(/^"[\w-]{22}"$/);
    expect(await etagOf(), 'the same answer, the same tag').to.equal(first);
    await request(app).get(`/crates/${CRATE}`).set('if-none-match', first).expect(304);

    const changes: [string, () => Promise<unknown>][] = [
      ['a bottle added', () => addBottle(3)],
      [
        'a bottle changed',
        () =>
          db
            .knex('tag_bottles')
            .where({ id: idOf(10) })
            .update({ sku: 'C' }),
      ],
      [
        'a label linked',
        () => db.knex('tag_crate_labels').insert({ crate_id: CRATE, label_id: LABEL }),
      ],
      [
        'a linked label renamed',
        () => db.knex('tag_labels').where({ id: LABEL }).update({ name: 'glass' }),
      ],
    ];
    const seen = [first];
    for (const [what, change] of changes) {
      await change();
      const res = await request(app)
        .get(`/crates/${CRATE}`)
        .set('if-none-match', seen.at(-1)!)
        .expect(200);
      expect(res.headers.etag, what).to.match(/^"[\w-]{22}"$/);
      expect(seen, what).not.to.include(res.headers.etag);
      seen.push(res.headers.etag as string);
    }
    const res = await request(app).get(`/crates/${CRATE}`).set('if-none-match', seen.at(-1)!);
    expect(res.status).to.equal(304);
  });

  it('changes with the tag the GET sent, and refuses with 412 a tag a member made stale', async () => {
    const read = await etagOf();
    const put = await request(app)
      .put(`/crates/${CRATE}`)
      .set('if-match', read)
      .send({ note: 'b' })
      .expect(200);
    // The change's answer carries the tag a GET now sends: the client can change again with it.
    const after = put.headers.etag as string;
    expect(after).not.to.equal(read);
    expect(await etagOf()).to.equal(after);

    await addBottle(4);
    const refused = await request(app)
      .put(`/crates/${CRATE}`)
      .set('if-match', after)
      .send({ note: 'c' })
      .expect(412);
    expect(refused.body).to.include({ code: 'crud.precondition_failed' });
    await request(app).delete(`/crates/${CRATE}`).set('if-match', after).expect(412);
    const kept = await request(app).get(`/crates/${CRATE}`).expect(200);
    expect(kept.body.note).to.equal('b');
    expect(kept.body.bottles).to.have.length(bottle - 10);

    await request(app).put(`/crates/${CRATE}`).set('if-match', '*').send({ note: 'd' }).expect(200);
    await request(app)
      .delete(`/crates/${CRATE}`)
      .set('if-match', await etagOf())
      .expect(204);
    await request(app).get(`/crates/${CRATE}`).expect(404);
  });
});

describe('a table declaring its DTO', () => {
  it('stops at start-up when the DTO reads another table', () => {
    expect(() =>
      defineEntityTable({
        table: 'tag_bottles',
        entity: Bottle,
        fields: { id: 'uuid', sku: 'string' },
        dto: crateResource,
      }),
    ).to.throw('dto reads the table "tag_crates", not "tag_bottles"');
  });
});
