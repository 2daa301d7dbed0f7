// Soft delete against real databases: a delete marks the row, which every read, reference check
// and unique check then passes over; a restore brings back exactly what that delete took (its
// cascade, not rows deleted before), refused with 409 when a live row took a unique value since
// and with 422 when the row it names is deleted; events are recorded as for the other operations.
// A restore's If-Match, over HTTP as a generated slice answers, is held to the tag of the row with
// what its DTO nests (an author's books).
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import {
  changeEntity,
  deleteEntity,
  loadRow,
  restoreEntity,
  sendEntity,
  sliceRoute,
  visibleRows,
  type Caller,
} from '@slicekit/runtime/crud';
import { loadRelated, parseListQuery, runListQuery } from '@slicekit/runtime/list-query';
import { describeEachDatabase } from '../../support/services.js';
import {
  accessRows,
  authorList,
  authors,
  bookList,
  books,
  createAccessTables,
  failure,
  problemOf,
  stickers,
} from './support/access-tables.js';

describeEachDatabase('soft delete and restore', (db) => {
  before(async () => {
    await createAccessTables(db.knex);
  });

  const { author, book, sticker, nextId } = accessRows(db, '5d0c2f7e-3c1a-4e0b-9a51');

  it('marks the row instead of removing it: 404 to every read, back with restore, events recorded', async () => {
    const id = await author('marks@example.com');
    await deleteEntity(db.knex, authors, id, 'kenji');
    const stored = await db.knex('sd_authors').where({ id }).first();
    expect(stored.deleted_by).to.equal('kenji');
    expect(stored.deleted_on).to.not.equal(null);
    expect(problemOf(await failure(loadRow(db.knex, authors, id))).status).to.equal(404);
    expect(await visibleRows(db.knex, authors).where({ id })).to.deep.equal([]);
    expect(problemOf(await failure(deleteEntity(db.knex, authors, id))).status).to.equal(404);

    const row = await restoreEntity(db.knex, authors, id, 'kenji');
    expect(authors.fromRow(row)).to.include({ id, deletedOn: null, deletedBy: null });
    expect((await loadRow(db.knex, authors, id)).email).to.equal(stored.email);
    const events = await db.knex('slicekit_outbox').where({ entity_id: id }).orderBy('id');
    expect(events.map((e: { name: string }) => e.name)).to.deep.equal([
      'AuthorDeleted',
      'AuthorRestored',
    ]);
    // Restoring a live row answers it as it is; an unknown id is 404.
    expect((await restoreEntity(db.knex, authors, id)).id).to.equal(id);
    expect(problemOf(await failure(restoreEntity(db.knex, authors, nextId()))).status).to.equal(
      404,
    );
  });

  it('keeps the deletion marks out of a save: only a delete or a restore writes them', async () => {
    const id = await author('saved@example.com');
    const row = await changeEntity(db.knex, authors, id, 'kenji', (a) => {
      a.deletedOn = new Date();
      a.deletedBy = 'kenji';
    });
    expect(authors.fromRow(row)).to.include({ deletedOn: null, deletedBy: null });
    expect((await loadRow(db.knex, authors, id)).deleted_on).to.equal(null);
  });

  it("lets a deleted row's unique value be taken again; restoring it then is 409 crud.duplicate", async () => {
    const email = 'taken@example.com';
    const first = await author(email);
    await deleteEntity(db.knex, authors, first);
    const second = await author(email);
    const refused = problemOf(await failure(restoreEntity(db.knex, authors, first)));
    expect(refused).to.include({ status: 409, code: 'crud.duplicate' });
    expect(refused.fields).to.deep.equal(['email']);
    // A live duplicate is still refused.
    expect(problemOf(await failure(author(email)))).to.include({ code: 'crud.duplicate' });
    await deleteEntity(db.knex, authors, second);
    expect((await restoreEntity(db.knex, authors, first)).email).to.equal(email);
  });

  it('answers 422 to a new reference to a deleted row, and to restoring a row whose reference is deleted', async () => {
    const parent = await author('parent@example.com');
    const child = await book(parent);
    await deleteEntity(db.knex, books, child);
    await deleteEntity(db.knex, authors, parent);
    const refused = problemOf(await failure(book(parent)));
    expect(refused).to.include({ status: 422, code: 'crud.invalid_reference' });
    expect(problemOf(await failure(restoreEntity(db.knex, books, child)))).to.include({
      status: 422,
      code: 'crud.invalid_reference',
    });
  });

  it('cascades to the live children and restores exactly those, not a child deleted before', async () => {
    const parent = await author('cascade@example.com');
    const [kept, gone] = [await book(parent), await book(parent)];
    await deleteEntity(db.knex, books, gone!);
    await deleteEntity(db.knex, authors, parent);
    expect(await visibleRows(db.knex, books).whereIn('id', [kept!, gone!])).to.deep.equal([]);
    const took = await db.knex('sd_books').where({ id: kept }).first();
    const parentRow = await db.knex('sd_authors').where({ id: parent }).first();
    expect(took.deletion_id).to.equal(parentRow.deletion_id);

    await restoreEntity(db.knex, authors, parent);
    const live = await visibleRows(db.knex, books).whereIn('id', [kept!, gone!]).pluck('id');
    expect(live).to.deep.equal([kept]);
  });

  it('reads a deleted row as no related row: null nested member, left out of collections, not matched', async () => {
    const parent = await author('nested@example.com');
    const [kept, gone] = [await book(parent), await book(parent)];
    await deleteEntity(db.knex, books, gone!);
    const list = async (resource: typeof authorList | typeof bookList, query: object) =>
      (await runListQuery(db.knex, resource, parseListQuery(resource, query))).items as Record<
        string,
        unknown
      >[];
    const [withBooks] = await list(authorList, { filter: `id:Equal:${parent}` });
    expect((withBooks!.books as { id: string }[]).map((b) => b.id)).to.deep.equal([kept]);
    expect(await list(authorList, { filter: `books.id:Equal:${gone}` })).to.deep.equal([]);

    const orphan = await book(await author('orphan@example.com'));
    const orphanAuthor = (await loadRow(db.knex, books, orphan)).author_id as string;
    await db
      .knex('sd_authors')
      .where({ id: orphanAuthor })
      .update({ deleted_on: new Date(0) });
    const [row] = await list(bookList, { filter: `id:Equal:${orphan}` });
    expect(row!.author).to.equal(null);
    expect(await list(bookList, { filter: `author.id:Equal:${orphanAuthor}` })).to.deep.equal([]);
  });

  it('restricts on live referrers only', async () => {
    const target = await book(null);
    const one = await sticker(target);
    const refused = problemOf(await failure(deleteEntity(db.knex, books, target)));
    expect(refused).to.include({ status: 409, code: 'crud.still_referenced' });
    await deleteEntity(db.knex, stickers, one);
    await deleteEntity(db.knex, books, target);
    expect(await visibleRows(db.knex, books).where({ id: target })).to.deep.equal([]);
  });

  it('restores with If-Match held to the tag of the author with its books: stale 412, then the tag a GET sends', async () => {
    // GET /authors/:id and POST /authors/:id/restore as a generated slice with relations answers.
    const app = express();
    const toDto = async (row: Record<string, unknown>, caller: Caller) =>
      authorList.toDto(await loadRelated(db.knex, authorList, row, caller));
    app.get(
      '/authors/:id',
      sliceRoute(async ({ id, caller }, res) => {
        sendEntity(res, await toDto(await loadRow(db.knex, authors, id, caller), caller));
      }),
    );
    app.post(
      '/authors/:id/restore',
      sliceRoute(async ({ id, caller }, res) => {
        sendEntity(res, await toDto(await restoreEntity(db.knex, authors, id, caller), caller));
      }),
    );
    const parent = await author('tagged@example.com');
    const kept = await book(parent);
    const read = await request(app).get(`/authors/${parent}`).expect(200);
    expect(read.body.books).to.deep.equal([{ id: kept }]);
    // Deleted with the tag read; its book went with it, so that tag no longer holds.
    await deleteEntity(db.knex, authors, parent, { principal: '', ifMatch: read.headers.etag });
    const restore = () => request(app).post(`/authors/${parent}/restore`);
    const stale = await restore().set('if-match', '"not-the-row"').expect(412);
    expect(stale.body).to.include({ code: 'crud.precondition_failed' });
    await restore()
      .set('if-match', read.headers.etag as string)
      .expect(412);
    expect(await visibleRows(db.knex, books).where({ id: kept })).to.deep.equal([]);

    const back = await restore().set('if-match', '*').expect(200);
    expect(back.body.books).to.deep.equal([{ id: kept }]);
    const again = await request(app).get(`/authors/${parent}`).expect(200);
    expect(back.headers.etag).to.equal(again.headers.etag);
    // A live row's restore answers it as it is, with the tag a GET sends; a book added since
    // makes that tag stale.
    await restore()
      .set('if-match', again.headers.etag as string)
      .expect(200);
    await book(parent);
    await restore()
      .set('if-match', again.headers.etag as string)
      .expect(412);
  });
});
