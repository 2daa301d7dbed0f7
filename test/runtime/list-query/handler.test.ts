// listHandler in an Express app: the paged response, problem+json for bad input, a per-request
// scope, counting switched off, and a database failure that never shows its SQL text.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import knexFactory from 'knex';
import {
  listHandler,
  listQueryAfterCreate,
  parseListQuery,
  runListQuery,
} from '@slicekit/runtime/list-query';
import { useDatabase } from '../../support/services.js';
import { createDataset, items } from './fixture.js';

describe('list handler', () => {
  const db = useDatabase('sqlite');
  const logged: unknown[] = [];
  let app: express.Express;

  before(async () => {
    await createDataset(db.knex);
    app = express();
    app.get('/items', listHandler(items, db.knex));
    app.get(
      '/active',
      listHandler(items, () => db.knex, {
        scope: (qb, req) => qb.where('lq_items.is_active', req.get('x-active') !== 'no'),
      }),
    );
    app.get('/uncounted', listHandler(items, db.knex, { count: 'none' }));
    app.get(
      '/broken',
      listHandler({ ...items, table: 'missing_table' }, db.knex, {
        logger: { error: (obj) => logged.push(obj) },
      }),
    );
  });

  it('answers 200 with a PagedResponse', async () => {
    const res = await request(app).get('/items?pageSize=25&pageNumber=2').expect(200);
    expect(res.body).to.include({
      pageNumber: 2,
      pageSize: 25,
      pageCount: 3,
      totalItemCount: 60,
      hasNextPage: true,
      hasPreviousPage: true,
    });
    expect(res.body.items).to.have.length(25);
    expect(res.body.items[0]).to.have.all.keys(
      'id',
      'name',
      'code',
      'price',
      'quantity',
      'isActive',
      'status',
      'createdOn',
      'releaseDate',
      'meta',
      'category',
      'tags',
      'labels',
      'parts',
      'attributes',
    );
  });

  it('answers 400 problem+json naming the parameter and field', async () => {
    const res = await request(app).get('/items?filter=price:Equal:cheap').expect(400);
    expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ status: 400, parameter: 'filter', field: 'price' });
    expect(res.body.instance).to.equal('/items?filter=price:Equal:cheap');
    expect(res.body.detail).to.match(/price/);
  });

  it('applies the scope to the page and the count', async () => {
    const active = await request(app).get('/active?pageSize=100').expect(200);
    const inactive = await request(app)
      .get('/active?pageSize=100')
      .set('x-active', 'no')
      .expect(200);
    expect(active.body.items.every((i: { isActive: boolean }) => i.isActive)).to.equal(true);
    expect(active.body.totalItemCount + inactive.body.totalItemCount).to.equal(60);
    expect(active.body.totalItemCount).to.equal(active.body.items.length);
  });

  it('answers an OR group and a selection over HTTP, inside the scope', async () => {
    const url = `/active?pageSize=100&select=id,isActive&filter=${encodeURIComponent(
      'or(isActive:Equal:false|id:IsNotNull)',
    )}`;
    const res = await request(app).get(url).expect(200);
    expect(res.body.items.length).to.be.above(0);
    for (const item of res.body.items) expect(item).to.deep.equal({ id: item.id, isActive: true });
    const broken = await request(app).get('/active?filter=or(isActive:Equal:false').expect(400);
    expect(broken.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(broken.body).to.include({ code: 'list_query.invalid', parameter: 'filter' });
    const unknown = await request(app).get('/active?select=id,ownedBy').expect(400);
    expect(unknown.body).to.include({ code: 'list_query.invalid', parameter: 'select' });
  });

  it('finds the next page without counting when counting is off', async () => {
    const first = await request(app).get('/uncounted?pageSize=30').expect(200);
    expect(first.body).to.include({ totalItemCount: null, pageCount: null, hasNextPage: true });
    expect(first.body.items).to.have.length(30);
    const last = await request(app).get('/uncounted?pageSize=30&pageNumber=2').expect(200);
    expect(last.body).to.include({ hasNextPage: false, hasPreviousPage: true });
  });

  it('answers a database failure with a 500 problem that hides the SQL error', async () => {
    const res = await request(app).get('/broken').expect(500);
    expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(JSON.stringify(res.body)).not.to.match(/missing_table|SQLITE/);
    expect(res.body.instance).to.equal('/broken');
    expect(logged).to.have.length(1);
  });

  it('runs inside a transaction and sees its uncommitted rows', async () => {
    const trx = await db.knex.transaction();
    try {
      await trx('lq_items')
        .where('id', '00000000-0000-4000-8000-000000000001')
        .update({ name: 'Ünique' });
      const page = await runListQuery(trx, items, parseListQuery(items, { search: 'üniq' }));
      expect(page.items.map((i) => i.name)).to.deep.equal(['Ünique']);
    } finally {
      await trx.rollback();
    }
  });

  it('installs the Unicode lower-case function on new SQLite connections', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
      pool: { afterCreate: listQueryAfterCreate() },
    });
    try {
      const [row] = await knex.raw(`select slicekit_lower('ÉCOLE Ω') as v`);
      expect(row.v).to.equal('école ω');
    } finally {
      await knex.destroy();
    }
  });
});
