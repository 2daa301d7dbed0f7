// Count modes on SQLite, PostgreSQL and MySQL/MariaDB, and their choice by `Prefer: count=...`
// through listHandler, answered with `Preference-Applied`.
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  defineListResource,
  listHandler,
  parseListQuery,
  runListQuery,
} from '@slicekit/runtime/list-query';
import { ESTIMATE_MAX_AGE_MS } from '@slicekit/runtime/internal';
import { allDialects, useDatabase } from '../../support/services.js';
import { createDataset, itemDto, items, itemsDefinition } from './fixture.js';

const ESTIMATE_OVER: Record<string, string> = {
  sqlite: 'lowerBound', // a row found past the threshold
  postgres: 'estimated',
  mysql: 'estimated',
};

for (const dialect of allDialects) {
  describe(`list count modes on ${dialect}`, function () {
    this.timeout(60_000);
    const db = useDatabase(dialect);
    // The same list with a threshold the 60 rows are past.
    const small = defineListResource({
      table: 'lq_items',
      dto: itemDto,
      audited: true,
      columns: {
        meta: { json: 'meta' },
        category: { relation: { table: 'lq_categories', localColumn: 'category_id' } },
        tags: { collection: { table: 'lq_tags', foreignKey: 'item_id', column: 'value' } },
        secret: { computed: true },
      },
      exactCountBelow: 10,
    });
    const query = (resource = items) => parseListQuery(resource, { pageSize: '5' });

    before(() => createDataset(db.knex));

    it('counts exactly by default while the list is small', async () => {
      const page = await runListQuery(db.knex, items, query());
      expect(page).to.include({ totalItemCount: 60, totalItemCountKind: 'exact', pageCount: 12 });
    });

    it('estimates past the threshold, and says what the number is', async () => {
      const page = await runListQuery(db.knex, small, query(small));
      expect(page.totalItemCountKind).to.equal(ESTIMATE_OVER[dialect]);
      expect(page.totalItemCount).to.be.a('number').and.be.at.least(5);
      if (dialect === 'sqlite') expect(page.totalItemCount).to.equal(11);
    });

    if (dialect !== 'sqlite') {
      it("reuses the planner's estimate for the same rows asked again at once, not for other rows", async function () {
        const explained: string[] = [];
        const listener = (q: { sql: string }) => {
          if (/^explain/i.test(q.sql)) explained.push(q.sql);
        };
        const list = (params: Record<string, string>) =>
          runListQuery(db.knex, small, parseListQuery(small, { pageSize: '5', ...params }));
        const started = Date.now();
        db.knex.on('query', listener);
        const pages = await (async () => [
          await list({ filter: 'price:GreaterThan:1', pageNumber: '1' }),
          await list({ filter: 'price:GreaterThan:1', pageNumber: '2' }),
          await list({ filter: 'price:GreaterThan:2' }),
        ])().finally(() => db.knex.removeListener('query', listener));
        // The reuse lasts a second: a machine too slow for that has nothing to show here.
        if (Date.now() - started >= ESTIMATE_MAX_AGE_MS) this.skip();
        expect(pages.map((page) => page.totalItemCountKind)).to.deep.equal([
          'estimated',
          'estimated',
          'estimated',
        ]);
        expect(pages[1]!.totalItemCount).to.equal(pages[0]!.totalItemCount);
        // The second page's rows are the first's: one EXPLAIN for both, one for the other filter.
        expect(explained).to.have.length(2);
      });
    }

    if (dialect === 'sqlite') {
      it('is exact up to the threshold and a lower bound one row past it', async () => {
        const at = (exactCountBelow: number) =>
          defineListResource({ ...itemsDefinition, exactCountBelow });
        const exact = await runListQuery(db.knex, at(60), query(at(60)), { count: 'estimated' });
        expect(exact).to.include({ totalItemCount: 60, totalItemCountKind: 'exact' });
        const past = await runListQuery(db.knex, at(59), query(at(59)), { count: 'estimated' });
        expect(past).to.include({ totalItemCount: 60, totalItemCountKind: 'lowerBound' });
      });
    }

    it('counts exactly or not at all when asked', async () => {
      const exact = await runListQuery(db.knex, small, query(small), { count: 'exact' });
      expect(exact).to.include({ totalItemCount: 60, totalItemCountKind: 'exact' });
      const none = await runListQuery(db.knex, small, query(small), { count: 'none' });
      expect(none).to.include({ totalItemCount: null, totalItemCountKind: null, pageCount: null });
      expect(none).to.include({ hasNextPage: true });
    });

    it('bounds an exact count at exactCountMax and answers the estimate past it', async () => {
      const capped = await runListQuery(db.knex, items, query(), {
        count: 'exact',
        exactCountMax: 20,
      });
      expect(capped.totalItemCountKind).to.equal(ESTIMATE_OVER[dialect]);
      expect(capped.totalItemCount).to.be.a('number').and.be.at.least(21);
      if (dialect === 'sqlite') expect(capped.totalItemCount).to.equal(21);
      const within = await runListQuery(db.knex, items, query(), {
        count: 'exact',
        exactCountMax: 60,
      });
      expect(within).to.include({ totalItemCount: 60, totalItemCountKind: 'exact' });
      const filtered = parseListQuery(items, {
        pageSize: '5',
        filter: 'or(code:IsNull|price:LessThan:30)',
      });
      const [expected] = await db
        .knex('lq_items')
        .where((qb) => qb.whereNull('code').orWhere('price', '<', 30))
        .count({ n: '*' });
      const bounded = await runListQuery(db.knex, items, filtered, {
        count: 'exact',
        exactCountMax: 59,
      });
      expect(bounded).to.include({
        totalItemCount: Number(expected!.n),
        totalItemCountKind: 'exact',
      });
    });

    it("bounds the exact count at the dialect's default (5,000 on SQLite, 10,000 elsewhere)", async () => {
      // 5,001 rows: past SQLite's bound (it keeps no estimate and steps over each row below it),
      // below the bound of the databases that estimate.
      await db.knex.schema.createTable('lq_bound', (t) => t.integer('id').primary());
      const ids = Array.from({ length: 5_001 }, (_, id) => ({ id }));
      await db.knex.batchInsert('lq_bound', ids, 500);
      if (dialect === 'postgres') await db.knex.raw('analyze lq_bound');
      if (dialect === 'mysql') await db.knex.raw('analyze table lq_bound');
      const bound = defineListResource({
        table: 'lq_bound',
        dto: { type: 'object', properties: { id: { type: 'integer' } } },
      });
      const page = await runListQuery(db.knex, bound, parseListQuery(bound, {}));
      expect(page).to.include(
        dialect === 'sqlite'
          ? { totalItemCount: 5_001, totalItemCountKind: 'lowerBound' }
          : { totalItemCount: 5_001, totalItemCountKind: 'exact' },
      );
    });

    it('counts exactly when the page shows where the list ends', async () => {
      const last = parseListQuery(small, { pageSize: '7', pageNumber: '9' });
      const page = await runListQuery(db.knex, small, last, { count: 'estimated' });
      expect(page).to.include({ totalItemCount: 60, totalItemCountKind: 'exact' });
    });
  });
}

describe('list count preference', () => {
  const db = useDatabase('sqlite');
  const app = express();
  app.get(
    '/items',
    listHandler(items, () => db.knex),
  );

  before(() => createDataset(db.knex));

  it('answers the count the client prefers, saying so in Preference-Applied', async () => {
    const none = await request(app).get('/items').set('Prefer', 'count=none').expect(200);
    expect(none.headers['preference-applied']).to.equal('count=none');
    expect(none.headers.vary).to.match(/prefer/i);
    expect(none.body).to.include({ totalItemCount: null, totalItemCountKind: null });
    const exact = await request(app)
      .get('/items')
      .set('Prefer', 'return=minimal, COUNT="exact"')
      .expect(200);
    expect(exact.headers['preference-applied']).to.equal('count=exact');
    expect(exact.body).to.include({ totalItemCount: 60, totalItemCountKind: 'exact' });
  });

  it("bounds a client's exact count at the list's exactCountMax, saying it estimated", async () => {
    const capped = express();
    capped.get(
      '/items',
      listHandler(defineListResource({ ...itemsDefinition, exactCountMax: 30 }), db.knex),
    );
    const res = await request(capped).get('/items').set('Prefer', 'count=exact').expect(200);
    expect(res.headers['preference-applied']).to.equal('count=estimated');
    expect(res.body).to.include({ totalItemCount: 31, totalItemCountKind: 'lowerBound' });
    // The route's own choice of an exact count is the operator's: not bounded.
    const chosen = express();
    chosen.get(
      '/items',
      listHandler(defineListResource({ ...itemsDefinition, exactCountMax: 30 }), db.knex, {
        count: 'exact',
      }),
    );
    const own = await request(chosen).get('/items').expect(200);
    expect(own.body).to.include({ totalItemCount: 60, totalItemCountKind: 'exact' });
  });

  it('ignores a count it does not know, as RFC 7240 asks', async () => {
    const res = await request(app).get('/items').set('Prefer', 'count=planned').expect(200);
    expect(res.headers['preference-applied']).to.equal(undefined);
    expect(res.body.totalItemCount).to.equal(60);
  });

  it('answers a bad cursor with 400 problem+json', async () => {
    const res = await request(app).get('/items?cursor=abc.def').expect(400);
    expect(res.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({
      code: 'list_query.cursor_invalid',
      type: 'urn:slicekit:problem:invalid-list-cursor',
    });
  });
});
