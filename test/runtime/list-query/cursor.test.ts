// Cursor paging on SQLite, PostgreSQL and MySQL/MariaDB: walking forward and back over every kind
// of order gives the rows of offset paging, rows inserted before the cursor do not shift the next
// page, and a cursor altered, from another list or for another query is a 400.
import { expect } from 'chai';
import {
  buildListQueries,
  defineListResource,
  parseListQuery,
  runListQuery,
  type PagedResponse,
} from '@slicekit/runtime/list-query';
import { ProblemError } from '@slicekit/runtime/http';
import { allDialects, useDatabase } from '../../support/services.js';
import { createDataset, itemDto, items } from './fixture.js';

type Item = { id: string };
type Query = Record<string, string | string[]>;

const ORDERS: Query[] = [
  {}, // the default order: createdOn descending (with ties), then the id
  { orderBy: 'name' }, // text, code-point order
  { orderBy: 'name', desc: 'true', search: 'an' },
  { orderBy: 'price', filter: 'quantity:GreaterThan:3' }, // decimal
  { orderBy: 'quantity', desc: 'true' }, // integer, many ties
  { orderBy: 'code' }, // nullable text: NULL first
  { orderBy: 'code', desc: 'true' }, // NULL last
  { orderBy: 'releaseDate', desc: 'true' }, // nullable date
  { orderBy: 'createdOn' }, // date-time
  { orderBy: 'isActive' },
  { orderBy: 'status', desc: 'true' }, // enum
  { orderBy: 'category.title' }, // a relation path, null without a category
  { orderBy: 'category.title', desc: 'true', filter: 'code:NotEqual:C-ab1' },
  // An OR group over a relation path, and a selection leaving the order's member out.
  {
    orderBy: 'price',
    filter:
      'or(category.title:Equal:Tools|and(status:Equal:draft|code:IsNull)|quantity:LessThan:5)',
    select: 'id,name',
  },
  { orderBy: 'category.title', select: 'id', search: 'an' },
];

const ids = (page: PagedResponse<Item>) => page.items.map((i) => i.id);

async function walk(
  list: (query: Query) => Promise<PagedResponse<Item>>,
  base: Query,
  first: PagedResponse<Item>,
  direction: 'nextCursor' | 'previousCursor',
): Promise<string[]> {
  const seen = [...ids(first)];
  let page = first;
  for (let guard = 0; page[direction] && guard < 30; guard++) {
    page = await list({ ...base, cursor: page[direction]! });
    if (direction === 'nextCursor') seen.push(...ids(page));
    else seen.unshift(...ids(page));
  }
  return seen;
}

for (const dialect of allDialects) {
  describe(`list cursors on ${dialect}`, function () {
    this.timeout(60_000);
    const db = useDatabase(dialect);
    const list = async (query: Query) =>
      (await runListQuery(db.knex, items, parseListQuery(items, query))) as PagedResponse<Item>;

    before(() => createDataset(db.knex));

    ORDERS.forEach((order) => {
      it(`walks ${new URLSearchParams(order as Record<string, string>).toString() || 'the default order'} forward and back as offset paging does`, async () => {
        const all = ids(await list({ ...order, pageSize: '100' }));
        expect(all.length).to.be.above(10);
        const base = { ...order, pageSize: '7' };
        const first = await list(base);
        expect(first).to.include({ hasPreviousPage: false, previousCursor: null });
        const forward = await walk(list, base, first, 'nextCursor');
        expect(forward).to.deep.equal(all);
        // From the last page back to the first, by previousCursor.
        const lastNumber = String(Math.ceil(all.length / 7));
        const last = await list({ ...base, pageNumber: lastNumber });
        expect(last).to.include({ hasNextPage: false, nextCursor: null });
        expect(await walk(list, base, last, 'previousCursor')).to.deep.equal(all);
      });
    });

    it('answers cursor pages without a page number and counts them', async () => {
      const first = await list({ pageSize: '25' });
      const second = await list({ pageSize: '25', cursor: first.nextCursor! });
      expect(second).to.include({ pageNumber: null, totalItemCount: 60, hasPreviousPage: true });
      expect(ids(second)).to.deep.equal(ids(await list({ pageSize: '25', pageNumber: '2' })));
    });

    it('keeps the next page when rows are inserted before the cursor', async () => {
      const query = { orderBy: 'price', pageSize: '10' };
      const first = await list(query);
      const expected = ids(await list({ ...query, pageNumber: '2' }));
      // Cheaper than every row: they sort before the cursor, and would shift page 2 by offset.
      await db.knex('lq_items').insert(
        [1, 2, 3].map((n) => ({
          id: `00000000-0000-4000-9000-00000000000${n}`,
          name: `inserted ${n}`,
          price: '-1.00',
          quantity: 1,
          is_active: true,
          status: 'draft',
          created_on: new Date(),
        })),
      );
      try {
        expect(ids(await list({ ...query, cursor: first.nextCursor! }))).to.deep.equal(expected);
        expect(ids(await list({ ...query, pageNumber: '2' }))).to.not.deep.equal(expected);
      } finally {
        await db.knex('lq_items').where('id', 'like', '00000000-0000-4000-9000-%').del();
      }
    });
  });
}

describe('list cursors refused', () => {
  const db = useDatabase('sqlite');
  let cursor: string;
  const problem = (query: Query, resource = items) => {
    try {
      parseListQuery(resource, query);
    } catch (error) {
      expect(error).to.be.instanceOf(ProblemError);
      return (error as ProblemError).toProblem();
    }
    throw new Error('expected a 400');
  };

  before(async () => {
    await createDataset(db.knex);
    const page = await runListQuery(db.knex, items, parseListQuery(items, { orderBy: 'price' }));
    cursor = page.nextCursor!;
  });

  it('bounds the first key of a cursor page on its own, so the index range starts there', () => {
    const { page } = buildListQueries(
      db.knex,
      items,
      parseListQuery(items, { orderBy: 'price', cursor }),
    );
    expect(page.toSQL().sql).to.include(
      'where ("lq_items"."price" >= ? AND ("lq_items"."price" > ? OR ("lq_items"."price" = ?',
    );
  });

  it('answers 400 list_query.cursor_invalid to an altered or cut cursor', () => {
    const [body, tag] = cursor.split('.') as [string, string];
    const altered = `${body.slice(0, 5)}${body[5] === 'A' ? 'B' : 'A'}${body.slice(6)}.${tag}`;
    for (const bad of [altered, body, `${body}.`, cursor.slice(0, -2), 'x'.repeat(9000), '%%']) {
      expect(problem({ orderBy: 'price', cursor: bad })).to.include({
        status: 400,
        code: 'list_query.cursor_invalid',
        parameter: 'cursor',
      });
    }
  });

  it('takes a cursor back with the same group and selection, however spelt', async () => {
    const query = {
      orderBy: 'price',
      filter: 'or(quantity:GreaterThan:1|code:IsNull)',
      select: 'id,name',
      pageSize: '5',
    };
    const made = (await runListQuery(db.knex, items, parseListQuery(items, query))).nextCursor!;
    const respelt = {
      ...query,
      filter: 'OR(code:isnull|Quantity:GreaterThan:1)',
      select: 'name,ID',
      cursor: made,
    };
    expect(parseListQuery(items, respelt).cursor).to.include({ direction: 'next' });
    for (const other of [{ select: 'id' }, { filter: 'or(quantity:GreaterThan:2|code:IsNull)' }]) {
      expect(problem({ ...respelt, ...other }), JSON.stringify(other)).to.include({
        code: 'list_query.cursor_invalid',
      });
    }
  });

  it('answers 400 to a cursor made for another order, filter, search or list', () => {
    const others: Query[] = [
      { orderBy: 'price', desc: 'true' },
      { orderBy: 'name' },
      { orderBy: 'price', filter: 'quantity:GreaterThan:1' },
      { orderBy: 'price', search: 'an' },
      { orderBy: 'price', filter: 'or(quantity:GreaterThan:1)' },
      { orderBy: 'price', select: 'id' },
      {},
    ];
    for (const query of others) {
      expect(problem({ ...query, cursor }), JSON.stringify(query)).to.include({
        code: 'list_query.cursor_invalid',
      });
    }
    const other = defineListResource({
      table: 'lq_items',
      dto: itemDto,
      columns: { secret: false },
    });
    expect(problem({ orderBy: 'price', cursor }, other)).to.include({
      code: 'list_query.cursor_invalid',
    });
    // A cursor signed with another secret.
    expect(() =>
      parseListQuery(items, { orderBy: 'price', cursor }, { cursorSecret: 'another' }),
    ).to.throw(ProblemError);
  });

  it('answers 400 to a cursor given with a page number', () => {
    expect(problem({ orderBy: 'price', cursor, pageNumber: '2' })).to.include({
      code: 'list_query.invalid',
      parameter: 'cursor',
    });
  });
});
