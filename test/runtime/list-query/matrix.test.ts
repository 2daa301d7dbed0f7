// The dialect matrix: one dataset, one table of list queries, run on SQLite, PostgreSQL and
// MySQL/MariaDB; every page must be identical row for row (and a few are checked outright).
import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  defineListResource,
  parseListQuery,
  runListQuery,
  type PagedResponse,
} from '@slicekit/runtime/list-query';
import { useDatabase } from '../../support/services.js';
import { createDataset, itemDto, items } from './fixture.js';

type Item = Record<string, unknown> & { name: string; tags: string[] };
type Query = Record<string, string | string[]>;
interface Case {
  query: Query;
  check?: (page: PagedResponse<Item>) => void;
}

const names = (page: PagedResponse<Item>) => page.items.map((i) => i.name);

/** Every text the search reads: direct members, depth-2 members and collection elements. */
function searchedTexts(item: Item): unknown[] {
  const parts = (item.parts as unknown[]) ?? [];
  return [
    item.name,
    item.code,
    (item.meta as { label?: string } | null)?.label,
    (item.category as { title?: string } | null)?.title,
    ...item.tags,
    ...((item.labels as unknown[] | null) ?? []),
    ...parts.map((e) => (typeof e === 'object' && e ? (e as { sku?: string }).sku : undefined)),
  ];
}

/** Every item of the page holds the term in a searched text, and there is at least one. */
const everyItemHolds = (term: string) => (page: PagedResponse<Item>) => {
  expect(page.items.length).to.be.above(0);
  for (const item of page.items) {
    const hit = searchedTexts(item).some(
      (v) => typeof v === 'string' && v.toLowerCase().includes(term.toLowerCase()),
    );
    expect(hit, JSON.stringify(item)).to.equal(true);
  }
};

const cases: Case[] = [
  { query: {}, check: (p) => expect(p.totalItemCount).to.equal(60) },
  { query: { pageSize: '7', pageNumber: '3' } },
  { query: { pageSize: '7', pageNumber: '9' }, check: (p) => expect(p.items).to.have.length(4) },
  { query: { pageNumber: '99' }, check: (p) => expect(p.items).to.deep.equal([]) },
  { query: { orderBy: 'name', pageSize: '100' } },
  { query: { orderBy: 'Name', desc: 'true', pageSize: '100' } },
  { query: { orderBy: 'code', pageSize: '100' } },
  { query: { orderBy: 'code', desc: '1', pageSize: '100' } },
  { query: { orderBy: 'price', pageSize: '50' } },
  { query: { orderBy: 'is_active', pageSize: '50' } },
  { query: { orderBy: 'status', desc: 'true', pageSize: '50' } },
  { query: { orderBy: 'release-date', pageSize: '50' } },
  { query: { orderBy: 'ID' } },
  {
    query: { search: 'éco', pageSize: '100' },
    check: (p) => expect(names(p)).to.include.members(['École', 'école']).and.not.include('ecole'),
  },
  {
    query: { search: 'ÉCOLE', pageSize: '100' },
    check: (p) => expect(names(p)).to.include.members(['École', 'école']).and.not.include('ECOLE'),
  },
  { query: { search: 'Ärg', pageSize: '100' }, check: (p) => expect(names(p)).to.include('ärger') },
  {
    query: { search: 'ΩMEGA', pageSize: '100' },
    check: (p) => expect(names(p)).to.include('ωmega'),
  },
  {
    query: { search: '0%', pageSize: '100' },
    check: (p) => {
      everyItemHolds('0%')(p); // % is literal: '100 percent' only if another text holds '0%'
      expect(names(p)).to.include('100% pure');
    },
  },
  {
    query: { search: 'e_c', pageSize: '100' },
    check: (p) => expect(names(p)).to.include('snake_case').and.not.include('snakeXcase'),
  },
  { query: { search: 'a!b', pageSize: '100' }, check: (p) => expect(names(p)).to.include('a!b') },
  { query: { search: "o'r" }, check: (p) => expect(names(p)).to.include("O'Reilly") },
  // Nested members (JSON label, joined category title) and the tags collection are searched too.
  {
    query: { search: 'électron', pageSize: '100' },
    check: (p) => expect(p.items.length).to.be.above(0),
  },
  { query: { search: 'rouge', pageSize: '100' }, check: everyItemHolds('rouge') },
  {
    query: { search: 'ÉLECTRON', pageSize: '100' },
    check: (p) => {
      everyItemHolds('électron')(p);
      for (const item of p.items) {
        expect((item.category as { title?: string } | null)?.title).to.equal('Électronique');
      }
    },
  },
  { query: { search: 'été', pageSize: '100' }, check: everyItemHolds('été') },
  // JSON arrays: any text element, or any object element's text member, matches.
  { query: { search: 'sku-ÉT', pageSize: '100' }, check: everyItemHolds('sku-ét') },
  { query: { search: 'loose', pageSize: '100' }, check: (p) => expect(p.items).to.be.empty },
  {
    query: { search: 'STRAß', pageSize: '100' },
    check: (p) => {
      everyItemHolds('straß')(p);
      const labelled = p.items.filter((i) => (i.labels as string[] | null)?.includes('Straße'));
      expect(labelled.length, 'found through a JSON array of text').to.be.above(0);
    },
  },
  { query: { search: '50%', pageSize: '100' } },
  {
    query: { filter: 'name:Contains:É', pageSize: '100' },
    check: (p) =>
      expect(names(p))
        .to.include.members(['École', 'école', 'café', 'CAFÉ'])
        .and.not.include.members(['ecole', 'ECOLE']),
  },
  {
    query: { filter: 'name:StartsWith:NAÏ', pageSize: '100' },
    check: (p) => expect(names(p)).to.include.members(['naïve', 'NAÏVE']),
  },
  {
    query: { filter: 'name:EndsWith:_case', pageSize: '100' },
    check: (p) => expect(names(p)).to.include('snake_case').and.not.include('snakeXcase'),
  },
  {
    query: { filter: 'name:Contains:!', pageSize: '100' },
    check: (p) => expect(names(p)).to.include.members(['bang!', 'a!b']),
  },
  { query: { filter: 'code:NotEqual:C-ab1', pageSize: '100' } },
  { query: { filter: 'code:NotIn:C-ab1,C-é2', pageSize: '100' } },
  { query: { filter: 'quantity:GreaterThan:10', orderBy: 'quantity', pageSize: '100' } },
  { query: { filter: 'price:Equal:12.5', pageSize: '100' } },
  { query: { search: 'nothing-matches-this' }, check: (p) => expect(p.totalItemCount).to.equal(0) },
  {
    query: { filter: 'name:Equal:École' },
    check: (p) => expect(names(p)).to.deep.equal(['École']),
  },
  {
    query: { filter: 'name:Equal:trailing' },
    check: (p) => expect(names(p)).to.deep.equal(['trailing']),
  },
  { query: { filter: 'name:NotEqual:apple', pageSize: '100' } },
  { query: { filter: 'name:StartsWith:É', pageSize: '100' } },
  { query: { filter: 'name:EndsWith:LE', pageSize: '100' } },
  { query: { filter: 'name:Contains:%', pageSize: '100' } },
  { query: { filter: 'name:NotContains:a', pageSize: '100' } },
  { query: { filter: 'code:NotContains:ab', pageSize: '100' } },
  {
    query: { filter: 'code:IsNull', pageSize: '100' },
    check: (p) => expect(p.items).to.not.be.empty,
  },
  { query: { filter: 'code:isnotnull', pageSize: '100' } },
  { query: { filter: 'name:GreaterThan:a', pageSize: '100' } },
  { query: { filter: 'name:LessThanOrEqual:Zebra', pageSize: '100' } },
  { query: { filter: ['price:GreaterThanOrEqual:25.5', 'price:LessThan:75'], pageSize: '100' } },
  { query: { filter: 'quantity:In:1,2,3,-1,40', pageSize: '100' } },
  { query: { filter: 'quantity:NotIn:1,2,3', pageSize: '100' } },
  { query: { filter: 'is_active:Equal:TRUE', pageSize: '100' } },
  { query: { filter: 'IsActive:NotEqual:1', pageSize: '100' } },
  { query: { filter: 'status:In:Draft,ARCHIVED', pageSize: '100' } },
  { query: { filter: 'status:GreaterThan:active', pageSize: '100' } },
  { query: { filter: 'createdOn:Equal:2024-05-02', pageSize: '100' } },
  { query: { filter: 'createdOn:GreaterThan:2024-05-02', pageSize: '100' } },
  { query: { filter: 'createdOn:LessThanOrEqual:2024-05-01', pageSize: '100' } },
  { query: { filter: 'created_on:GreaterThanOrEqual:2024-05-02T14:00:00+02:00', pageSize: '100' } },
  { query: { filter: 'createdOn:In:2024-05-01,2024-05-03T00:00:01Z', pageSize: '100' } },
  { query: { filter: 'releaseDate:LessThan:2024-05-01', pageSize: '100' } },
  { query: { filter: 'releaseDate:IsNull', pageSize: '100' } },
  {
    query: { filter: 'id:Equal:00000000-0000-4000-8000-00000000000A' },
    check: (p) => expect(p.items).to.have.length(0),
  },
  {
    query: {
      filter: 'id:In:{00000000-0000-4000-8000-000000000010},00000000000040008000000000000011',
    },
    check: (p) => expect(names(p)).to.have.length(2),
  },
  // OR groups: ANDed with the other filters; a relation path, NULL and nesting inside them.
  {
    query: { filter: 'or(name:Equal:apple|name:Equal:Apple|code:IsNull)', pageSize: '100' },
    check: (p) => {
      expect(names(p)).to.include.members(['apple', 'Apple']);
      for (const item of p.items) {
        expect(['apple', 'Apple'].includes(item.name) || item.code === null, item.name).to.equal(
          true,
        );
      }
    },
  },
  {
    query: { filter: 'or(category.title:StartsWith:É|price:LessThan:20)', pageSize: '100' },
    check: (p) => {
      const categoryless = p.items.filter((i) => i.category === null);
      expect(categoryless.length, 'no category, cheap enough').to.be.above(0);
      for (const item of p.items) {
        const title = (item.category as { title: string } | null)?.title ?? '';
        expect(title.startsWith('É') || (item.price as number) < 20, item.name).to.equal(true);
      }
    },
  },
  {
    query: {
      filter: [
        'or(and(status:Equal:draft|isActive:Equal:true)|quantity:In:1,2)',
        'price:LessThan:80',
      ],
      orderBy: 'category.title',
      pageSize: '100',
    },
    check: (p) => {
      expect(p.items.length).to.be.above(0);
      for (const item of p.items) {
        const both = item.status === 'draft' && item.isActive === true;
        expect(both || [1, 2].includes(item.quantity as number), item.name).to.equal(true);
        expect(item.price as number).to.be.below(80);
      }
    },
  },
  {
    query: {
      filter: "or(name:Equal:O'Reilly|name:Equal:x;drop|name:Contains:\\\\|name:Equal:a!b)",
    },
    check: (p) => expect(names(p).sort()).to.deep.equal(["O'Reilly", 'a!b', 'x;drop']),
  },
  {
    query: { search: 'an', filter: 'or(code:NotEqual:C-ab1|releaseDate:IsNull)', pageSize: '9' },
  },
  // select: only the chosen members, a relation cut down to one member.
  {
    query: { select: 'id,name,category.title', orderBy: 'category.title', pageSize: '100' },
    check: (p) => {
      for (const item of p.items) {
        expect(Object.keys(item)).to.deep.equal(['id', 'name', 'category']);
        if (item.category !== null)
          expect(Object.keys(item.category as object)).to.deep.equal(['title']);
      }
      expect(p.items.some((i) => i.category !== null)).to.equal(true);
    },
  },
  {
    query: { select: 'Tags,price,META', filter: 'or(category.id:Equal:1|quantity:LessThan:0)' },
    check: (p) => {
      for (const item of p.items)
        expect(Object.keys(item)).to.deep.equal(['price', 'meta', 'tags']);
    },
  },
  // select into JSON members: an object cut down to its keys, each object element of an array.
  {
    query: { select: 'name,meta.label,parts.sku', orderBy: 'name', pageSize: '100' },
    check: (p) => {
      const metas = p.items.map((i) => i.meta as Record<string, unknown> | null);
      expect(metas.some((m) => m === null)).to.equal(true);
      for (const item of p.items) {
        expect(Object.keys(item)).to.deep.equal(['name', 'meta', 'parts']);
        if (item.meta !== null) expect(Object.keys(item.meta as object)).to.deep.equal(['label']);
        for (const part of item.parts as unknown[]) {
          if (typeof part !== 'object') expect(part).to.equal('loose');
          else expect(['sku'], JSON.stringify(part)).to.include.members(Object.keys(part!));
        }
      }
      expect(p.items.some((i) => (i.parts as unknown[]).some((e) => e === 'loose'))).to.equal(true);
      expect(
        p.items.some((i) => (i.parts as unknown[]).some((e) => JSON.stringify(e) === '{}')),
        'an element without the key',
      ).to.equal(true);
    },
  },
  {
    query: { select: 'meta.weight,meta', pageSize: '30', pageNumber: '2' },
    check: (p) => {
      const whole = p.items.find((i) => i.meta !== null)!.meta as object;
      expect(Object.keys(whole)).to.have.members(['label', 'weight']);
    },
  },
  {
    query: {
      search: 'an',
      filter: ['price:GreaterThan:10', 'is_active:Equal:true'],
      orderBy: 'price',
      desc: 'true',
      pageSize: '5',
      pageNumber: '2',
    },
  },
];

describe('list-query dialect matrix', function () {
  this.timeout(60_000);
  const dbs = [useDatabase('sqlite'), useDatabase('postgres'), useDatabase('mysql')];

  before(async () => {
    await Promise.all(dbs.map((db) => createDataset(db.knex)));
  });

  cases.forEach(({ query, check }) => {
    it(`answers ${new URLSearchParams(query as Record<string, string>).toString() || '(no parameters)'} identically`, async () => {
      const parsed = parseListQuery(items, query);
      const [sqlite, postgres, mysql] = (await Promise.all(
        dbs.map((db) => runListQuery(db.knex, items, parsed)),
      )) as PagedResponse<Item>[];
      expect(postgres, 'PostgreSQL vs SQLite').to.deep.equal(sqlite);
      expect(mysql, 'MySQL vs SQLite').to.deep.equal(sqlite);
      check?.(sqlite!);
    });
  });

  it('follows a cursor identically', async () => {
    const query = { orderBy: 'category.title', desc: 'true', search: 'an', pageSize: '4' };
    const first = await runListQuery(dbs[0]!.knex, items, parseListQuery(items, query));
    const next = parseListQuery(items, { ...query, cursor: first.nextCursor! });
    const [sqlite, postgres, mysql] = await Promise.all(
      dbs.map((db) => runListQuery(db.knex, items, next)),
    );
    expect(sqlite).to.include({ pageNumber: null, hasPreviousPage: true });
    expect(postgres).to.deep.equal(sqlite);
    expect(mysql).to.deep.equal(sqlite);
  });

  it('never widens the scope or an owned relation with an OR group', async () => {
    // The caller owns the active rows (as an owner column would say), and of the categories only
    // the one whose owner column (here its title) is its name.
    const owned = defineListResource({
      table: 'lq_items',
      dto: itemDto,
      audited: true,
      columns: {
        meta: { json: 'meta' },
        category: {
          relation: { table: 'lq_categories', localColumn: 'category_id', ownerColumn: 'title' },
        },
        tags: { collection: { table: 'lq_tags', foreignKey: 'item_id', column: 'value' } },
        attributes: { json: 'attributes' },
        secret: { computed: true },
      },
    });
    const options = {
      principal: 'Tools',
      scope: (qb: Knex.QueryBuilder) => qb.where('lq_items.status', 'active'),
    };
    const widening = [
      'or(status:Equal:draft|status:NotEqual:active|id:IsNotNull)',
      'or(status:In:draft,archived|and(status:Equal:archived|id:IsNotNull)|name:IsNotNull)',
      'or(category.title:Equal:Électronique|category.title:NotEqual:Tools|category.id:IsNotNull)',
    ];
    for (const filter of widening) {
      const parsed = parseListQuery(owned, { filter, pageSize: '100', search: 'an' });
      const pages = await Promise.all(
        dbs.map((db) => runListQuery(db.knex, owned, parsed, options)),
      );
      const [sqlite] = pages as PagedResponse<Item>[];
      expect(sqlite!.items.length, filter).to.be.above(0);
      for (const item of sqlite!.items) {
        expect(item.status, filter).to.equal('active');
        expect([null, 'Tools']).to.include(
          (item.category as { title: string } | null)?.title ?? null,
        );
      }
      expect(pages[1], `PostgreSQL: ${filter}`).to.deep.equal(sqlite);
      expect(pages[2], `MySQL: ${filter}`).to.deep.equal(sqlite);
      const all = await dbs[1]!.knex('lq_items').where('status', 'active').count({ n: '*' });
      expect(sqlite!.totalItemCount).to.be.at.most(Number(all[0]!.n));
    }
    // Another caller's category is not there to match.
    const theirs = parseListQuery(owned, { filter: 'or(category.title:Equal:Électronique)' });
    for (const db of dbs) {
      expect((await runListQuery(db.knex, owned, theirs, options)).items).to.deep.equal([]);
    }
  });

  it('pages identically without counting', async () => {
    const parsed = parseListQuery(items, { search: 'an', pageSize: '4', pageNumber: '2' });
    const [sqlite, postgres, mysql] = await Promise.all(
      dbs.map((db) => runListQuery(db.knex, items, parsed, { count: 'none' })),
    );
    expect(sqlite).to.include({ totalItemCount: null, pageCount: null, hasNextPage: true });
    expect(postgres).to.deep.equal(sqlite);
    expect(mysql).to.deep.equal(sqlite);
  });
});
