// What a restore brings back with the row, against real databases: the rows its delete's cascade
// took are held to the same rules as the row (no reference or many-to-many link to a row deleted
// since, no unique value a live row took since), all or nothing; and the nested list route of a
// soft-deleting child takes ?deleted=include|only as the list does (the callers who may restore;
// 403 to others, 400 to a value it does not know).
import { expect } from 'chai';
import express from 'express';
import type { Knex } from 'knex';
import {
  callerOf,
  callerRows,
  deleteEntity,
  deletedRowsAccess,
  nestedListHandler,
  restoreEntity,
  visibleRows,
} from '@slicekit/runtime/crud';
import { describeEachDatabase } from '../../support/services.js';
import {
  accessRows,
  authors,
  bookList,
  books,
  callerFromHeaders,
  createAccessTables,
  failure,
  getAs,
  problemOf,
  shelves,
} from './support/access-tables.js';

/** GET /authors/:id/books, the books of one author; ?deleted= for admins (who may restore). */
function appOn(knex: Knex): express.Express {
  const app = express();
  app.use(callerFromHeaders);
  app.get(
    '/authors/:id/books',
    deletedRowsAccess('Book', ['admin']),
    nestedListHandler(bookList, knex, {
      parent: authors,
      foreignKey: 'sd_books.author_id',
      caller: callerOf,
      scope: callerRows(books),
      allowParameters: ['deleted'],
    }),
  );
  return app;
}

describeEachDatabase('restoring what a cascade took', (db) => {
  before(async () => {
    await createAccessTables(db.knex);
  });

  const { author, shelf, book } = accessRows(db, '6e1d3a8f-4d2b-4f1c-8b62');
  const live = async (table: typeof authors | typeof books, ids: string[]) =>
    (await visibleRows(db.knex, table).whereIn('id', ids).pluck('id')) as string[];

  it('refuses (422) restoring a row whose cascade would bring back a row naming a deleted one, and restores nothing', async () => {
    const [parent, onShelf] = [await author(), await shelf()];
    const [shelved, loose] = [await book(parent, onShelf), await book(parent)];
    await deleteEntity(db.knex, authors, parent);
    // Restrict counts live books only: the shelf of a deleted book can go.
    await deleteEntity(db.knex, shelves, onShelf);

    const refused = problemOf(await failure(restoreEntity(db.knex, authors, parent, 'ana')));
    expect(refused).to.include({ status: 422, code: 'crud.invalid_reference' });
    expect(refused.errors).to.deep.equal([
      {
        entity: 'Book',
        id: shelved,
        field: 'shelfId',
        message: `names a Shelf that is deleted or gone: ${onShelf}`,
        keyword: 'reference',
      },
    ]);
    expect(refused.detail).to.contain(`Book ${shelved} (shelfId)`);
    expect(await live(authors, [parent])).to.deep.equal([]);
    expect(await live(books, [shelved, loose])).to.deep.equal([]);

    // With the shelf back, the author comes back with both books.
    await restoreEntity(db.knex, shelves, onShelf);
    await restoreEntity(db.knex, authors, parent);
    expect(await live(authors, [parent])).to.deep.equal([parent]);
    expect((await live(books, [shelved, loose])).sort()).to.deep.equal([shelved, loose].sort());
  });

  it('refuses (422) restoring a row whose cascade would bring back a many-to-many link to a deleted row', async () => {
    const [parent, shown, kept] = [await author(), await shelf(), await shelf()];
    const displayed = await book(parent, null, undefined, [shown, kept]);
    await deleteEntity(db.knex, authors, parent);
    // The join rows stay through both soft deletes.
    await deleteEntity(db.knex, shelves, shown);

    const refused = problemOf(await failure(restoreEntity(db.knex, authors, parent)));
    expect(refused).to.include({ status: 422, code: 'crud.invalid_reference' });
    expect(refused.errors).to.deep.equal([
      {
        entity: 'Book',
        id: displayed,
        field: 'displayIds',
        message: `names a Shelf that is deleted or gone: ${shown}`,
        keyword: 'reference',
      },
    ]);
    expect(await live(books, [displayed])).to.deep.equal([]);

    await restoreEntity(db.knex, shelves, shown);
    await restoreEntity(db.knex, authors, parent);
    expect(await live(books, [displayed])).to.deep.equal([displayed]);
  });

  it('refuses (409 crud.duplicate) restoring a row whose cascade would bring back a unique value taken since, naming that row', async () => {
    const [parent, other] = [await author(), await author()];
    const title = 'Taken';
    const taken = await book(parent, null, title);
    await deleteEntity(db.knex, authors, parent);
    const again = await book(other, null, title);

    const refused = problemOf(await failure(restoreEntity(db.knex, authors, parent)));
    expect(refused).to.include({ status: 409, code: 'crud.duplicate' });
    expect(refused.fields).to.deep.equal(['title']);
    expect(refused.detail).to.contain(`Book ${taken}`);
    expect(await live(authors, [parent])).to.deep.equal([]);
    expect(await live(books, [taken])).to.deep.equal([]);

    await deleteEntity(db.knex, books, again);
    await restoreEntity(db.knex, authors, parent);
    expect(await live(books, [taken, again])).to.deep.equal([taken]);
  });

  it('lets a restored row name a row the same restore brings back', async () => {
    const parent = await author();
    const child = await book(parent);
    await deleteEntity(db.knex, authors, parent);
    expect((await restoreEntity(db.knex, authors, parent)).id).to.equal(parent);
    expect(await live(books, [child])).to.deep.equal([child]);
  });

  describe('the nested list route with ?deleted=', () => {
    let app: express.Express;
    let parent: string;
    let kept: string;
    let gone: string;
    const idsOf = (body: { items: { id: string }[] }) => body.items.map((b) => b.id).sort();

    before(async () => {
      app = appOn(db.knex);
      parent = await author();
      [kept, gone] = [await book(parent), await book(parent)];
      await deleteEntity(db.knex, books, gone);
    });

    it('lists the live children, and with deleted=include|only the deleted ones too or alone', async () => {
      const path = `/authors/${parent}/books`;
      expect(idsOf((await getAs(app, path, 'ana')).body)).to.deep.equal([kept]);
      const every = await getAs(app, `${path}?deleted=include`, 'root', undefined, 'admin');
      expect(every.status, JSON.stringify(every.body)).to.equal(200);
      expect(idsOf(every.body)).to.deep.equal([kept, gone].sort());
      const only = await getAs(app, `${path}?deleted=only`, 'root', undefined, 'admin');
      expect(idsOf(only.body)).to.deep.equal([gone]);
      expect(only.body.totalItemCount).to.equal(1);
      const excluded = await getAs(app, `${path}?deleted=exclude`, 'root', undefined, 'admin');
      expect(idsOf(excluded.body)).to.deep.equal([kept]);
    });

    it('answers 403 to a caller who may not restore, 401 anonymous, 400 to another value', async () => {
      const path = `/authors/${parent}/books?deleted=only`;
      const refused = await getAs(app, path, 'ana', undefined, 'clerk');
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ code: 'auth.forbidden', operation: 'restore' });
      expect((await getAs(app, path)).status).to.equal(401);
      const bad = await getAs(
        app,
        `/authors/${parent}/books?deleted=some`,
        'root',
        undefined,
        'admin',
      );
      expect(bad.status).to.equal(400);
      expect(bad.body).to.include({ code: 'list_query.invalid', parameter: 'deleted' });
    });

    it('answers 404 under a deleted parent, whatever deleted= asks', async () => {
      const other = await author();
      await book(other);
      await deleteEntity(db.knex, authors, other);
      for (const query of ['', '?deleted=include', '?deleted=only']) {
        const res = await getAs(app, `/authors/${other}/books${query}`, 'root', undefined, 'admin');
        expect(res.status, query).to.equal(404);
        expect(res.body).to.include({ code: 'crud.not_found' });
      }
    });
  });
});
