// Pages by number: page after page, they are the whole list in order, nothing repeated or
// skipped, on SQLite, PostgreSQL and MySQL/MariaDB (where a page past the first skips over the
// rows' ids alone, then reads its rows: a deferred join), with filters, search, a relation order
// and a scope.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { buildListQueries, parseListQuery, runListQuery } from '@slicekit/runtime/list-query';
import { useDatabase } from '../../support/services.js';
import { createDataset, items } from './fixture.js';

type Query = Record<string, string | string[]>;
const scope = (qb: Knex.QueryBuilder) => qb.where('lq_items.is_active', true);

const queries: Query[] = [
  {},
  { orderBy: 'category.title', desc: 'true' },
  { orderBy: 'name', filter: 'price:GreaterThan:10' },
  { search: 'an', orderBy: 'price', filter: 'or(status:Equal:draft|quantity:LessThan:20)' },
];

describe('list-query pages by number', function () {
  this.timeout(60_000);
  const dbs = [useDatabase('sqlite'), useDatabase('postgres'), useDatabase('mysql')];

  before(async () => {
    await Promise.all(dbs.map((db) => createDataset(db.knex)));
  });

  for (const query of queries) {
    it(`pages through ${new URLSearchParams(query as Record<string, string>).toString() || '(no parameters)'} as the whole list`, async () => {
      for (const db of dbs) {
        const whole = await runListQuery(
          db.knex,
          items,
          parseListQuery(items, { ...query, pageSize: '100' }),
          { scope },
        );
        expect(whole.items.length).to.be.above(4);
        const paged: unknown[] = [];
        for (let n = 1; n <= Math.ceil(whole.items.length / 4) + 1; n++) {
          const page = await runListQuery(
            db.knex,
            items,
            parseListQuery(items, { ...query, pageSize: '4', pageNumber: String(n) }),
            { scope, count: 'exact' },
          );
          expect(page.totalItemCount).to.equal(whole.totalItemCount);
          expect(page.hasNextPage).to.equal(n * 4 < whole.items.length);
          paged.push(...page.items);
        }
        expect(paged).to.deep.equal(whole.items);
      }
    });
  }

  it('skips over the ids alone on MySQL, with OFFSET on the others', () => {
    const query = parseListQuery(items, { pageSize: '4', pageNumber: '3' });
    const [sqlite, postgres, mysql] = dbs.map(
      (db) => buildListQueries(db.knex, items, query, { scope }).page.toSQL().sql,
    );
    expect(mysql).to.match(/`id` in \(select `id` from \(select .* offset \?\) as `page_ids`\)/i);
    expect(sqlite).to.match(/offset \?$/i);
    expect(postgres).to.match(/offset \?$/i);
  });
});
