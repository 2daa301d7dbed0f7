// Deep pages by a deferred join (the page's ids first, then those rows): on SQLite, PostgreSQL and
// MySQL/MariaDB, every page of a set of queries read so (`deferredJoinFrom: 1`) equals the page
// read by its offset, row for row and in order, and pages of the three databases are identical.
// By default MySQL/MariaDB defer from 2,000 rows skipped, PostgreSQL from 6,000, SQLite never.
import { expect } from 'chai';
import knexFactory from 'knex';
import {
  buildListQueries,
  defineListResource,
  parseListQuery,
  runListQuery,
  type ListResource,
} from '@slicekit/runtime/list-query';
import type { Knex } from 'knex';
import { useDatabase } from '../../support/services.js';
import { createDataset, itemDto, items, itemsDefinition } from './fixture.js';

type Query = Record<string, string | string[]>;

// Ties in every order (shared timestamps, prices, titles, nulls) are broken by the id alone.
const queries: Query[] = [
  { pageSize: '7' },
  { pageSize: '5', orderBy: 'category.title', desc: 'true' },
  { pageSize: '6', orderBy: 'code', search: 'an' },
  { pageSize: '4', orderBy: 'name', filter: 'or(price:LessThan:50|category.title:StartsWith:T)' },
  { pageSize: '3', orderBy: 'status', select: 'name,category.title,tags' },
  { pageSize: '8', orderBy: 'releaseDate', desc: 'true', select: 'id,meta', filter: 'code:IsNull' },
  { pageSize: '5', orderBy: 'is_active', filter: 'or(category.id:Equal:1|quantity:LessThan:0)' },
];

/** The fixture with its category required: shown, it is an inner join, which keeps rows out. */
const requiredCategory = defineListResource({
  ...itemsDefinition,
  dto: {
    ...itemDto,
    properties: {
      ...itemDto.properties,
      category: { ...itemDto.properties.category, type: 'object' },
    },
    required: [...itemDto.required, 'category'],
  },
});

describe('list-query deep pages by a deferred join', function () {
  this.timeout(60_000);
  const dbs = [useDatabase('sqlite'), useDatabase('postgres'), useDatabase('mysql')];

  before(async () => {
    await Promise.all(dbs.map((db) => createDataset(db.knex)));
  });

  const everyPage = async (
    knex: Knex,
    resource: ListResource<unknown>,
    query: Query,
    options: { deferredJoinFrom?: number; scope?: (qb: Knex.QueryBuilder) => void },
  ) => {
    const pages = [];
    for (let n = 1; n <= 15; n++) {
      const parsed = parseListQuery(resource, { ...query, pageNumber: String(n) });
      pages.push(await runListQuery(knex, resource, parsed, { ...options, count: 'exact' }));
    }
    return pages;
  };

  queries.forEach((query) => {
    it(`reads every page of ${new URLSearchParams(query).toString()} as the offset does`, async () => {
      const answers = await Promise.all(
        dbs.map(async (db) => {
          const plain = await everyPage(db.knex, items, query, { deferredJoinFrom: 1e9 });
          const deferred = await everyPage(db.knex, items, query, { deferredJoinFrom: 1 });
          expect(deferred, db.dialect).to.deep.equal(plain);
          return deferred;
        }),
      );
      expect(answers[0]!.some((p) => p.items.length > 0 && p.pageNumber! > 1)).to.equal(true);
      expect(answers[1], 'PostgreSQL vs SQLite').to.deep.equal(answers[0]);
      expect(answers[2], 'MySQL vs SQLite').to.deep.equal(answers[0]);
    });
  });

  it('keeps out what an inner join and the scope keep out', async () => {
    const scope = (qb: Knex.QueryBuilder) => qb.where('lq_items.is_active', true);
    const query = { pageSize: '4', select: 'name,category.title' };
    for (const db of dbs) {
      const plain = await everyPage(db.knex, requiredCategory, query, {
        scope,
        deferredJoinFrom: 1e9,
      });
      const deferred = await everyPage(db.knex, requiredCategory, query, {
        scope,
        deferredJoinFrom: 1,
      });
      expect(deferred, db.dialect).to.deep.equal(plain);
      const shown = plain.flatMap((p) => p.items as { category: unknown }[]);
      expect(shown.length).to.be.above(0);
      expect(shown.every((i) => i.category !== null)).to.equal(true);
    }
  });

  it('defers from 2,000 rows skipped on MySQL/MariaDB, 6,000 on PostgreSQL, never on SQLite', async () => {
    const clients = {
      mysql: knexFactory({ client: 'mysql2' }),
      postgres: knexFactory({ client: 'pg' }),
      sqlite: knexFactory({ client: 'better-sqlite3', useNullAsDefault: true }),
    };
    try {
      const sqlOf = (knex: Knex, pageNumber: number) =>
        buildListQueries(
          knex,
          items,
          parseListQuery(items, { pageNumber: String(pageNumber) }),
        ).page.toSQL().sql;
      // 20 rows a page: page 101 skips 2,000, page 301 6,000.
      expect(sqlOf(clients.mysql, 100)).to.not.include('k_id');
      expect(sqlOf(clients.mysql, 101)).to.include('`lq_items`.`id` IN (SELECT `k_id` FROM (');
      expect(sqlOf(clients.postgres, 300)).to.not.include('k_id');
      expect(sqlOf(clients.postgres, 301)).to.include('"lq_items"."id" IN (SELECT "k_id" FROM (');
      expect(sqlOf(clients.sqlite, 50_000)).to.not.include('k_id');
    } finally {
      await Promise.all(Object.values(clients).map((k) => k.destroy()));
    }
  });
});
