// Tenants and owner bypass roles against real databases: a tenant table's rows reach only callers
// of exactly that tenant (look-alike tenant ids are other tenants, whatever the collation) by every
// repository step, list, count, nested route, nested member, search, reference check and unique
// check; a caller without a tenant is refused; bypass roles reach every owner's rows of their
// tenant, and audit still records who changed them.
import { expect } from 'chai';
import express, { type Request } from 'express';
import type { Knex } from 'knex';
import {
  callerOf,
  callerRows,
  changeEntity,
  crudRoute,
  deleteEntity,
  insertEntity,
  loadRow,
  nestedListHandler,
  visibleRows,
  type Caller,
} from '@slicekit/runtime/crud';
import { ProblemError } from '@slicekit/runtime/http';
import { listHandler, loadRelated } from '@slicekit/runtime/list-query';
import { describeEachDatabase } from '../../support/services.js';
import { callerFromHeaders, failure, getAs } from './support/access-tables.js';
import {
  acme,
  book,
  bookResource,
  books,
  createTenantTables,
  idOf,
  LOOKALIKES,
  Shelf,
  shelfResource,
  shelves,
} from './support/tenant-tables.js';

/** An app whose caller comes from `x-user`, `x-tenant` and `x-roles` (callerFromHeaders). */
function appOn(knex: Knex): express.Express {
  const app = express();
  app.use(callerFromHeaders);
  app.get(
    '/books',
    listHandler(bookResource, knex, { scope: callerRows(books), caller: callerOf }),
  );
  app.get(
    '/shelves',
    listHandler(shelfResource, knex, { scope: callerRows(shelves), caller: callerOf }),
  );
  app.get(
    '/shelves/:id/books',
    nestedListHandler(bookResource, knex, {
      parent: shelves,
      foreignKey: 'tenant_books.shelf_id',
      caller: callerOf,
      scope: callerRows(books),
    }),
  );
  app.get(
    '/books/:id',
    crudRoute(async (req: Request, res) => {
      const caller = callerOf(req);
      const found = await loadRow(knex, books, String(req.params.id), caller);
      res.json(bookResource.toDto(await loadRelated(knex, bookResource, found, caller)));
    }),
  );
  return app;
}

describeEachDatabase('tenants and owner bypass roles', (db) => {
  let app: express.Express;
  const get = (path: string, user: string, tenant?: string, roles = '') =>
    getAs(app, path, user, tenant, roles);

  before(async () => {
    await createTenantTables(db.knex);
    app = appOn(db.knex);
    await insertEntity(
      db.knex,
      shelves,
      Object.assign(new Shelf(), { id: idOf(1), name: 'Poetry' }),
      acme('alice'),
    );
    await insertEntity(db.knex, books, book(2, 'Odes', '111', idOf(1)), acme('alice'));
    await insertEntity(db.knex, books, book(3, 'Sonnets', '222', idOf(1)), acme('bob'));
  });

  it('stamps the tenant and keeps every row of ACME from each look-alike tenant', async () => {
    expect(books.fromRow(await loadRow(db.knex, books, idOf(2), acme('alice')))).to.include({
      tenantId: 'ACME',
      ownedBy: 'alice',
    });
    for (const tenant of LOOKALIKES) {
      const other: Caller = { principal: 'alice', roles: ['admin'], tenant };
      expect(await visibleRows(db.knex, books, other), tenant).to.have.length(0);
      expect(await failure(loadRow(db.knex, shelves, idOf(1), other)), tenant).to.have.property(
        'status',
        404,
      );
      expect(await failure(loadRow(db.knex, books, idOf(2), other))).to.have.property(
        'status',
        404,
      );
      const changed = await failure(
        changeEntity(db.knex, books, idOf(2), other, (b) => void (b.title = 'x')),
      );
      expect(changed, tenant).to.be.instanceOf(ProblemError).with.property('status', 404);
      expect(await failure(deleteEntity(db.knex, books, idOf(2), other))).to.have.property(
        'status',
        404,
      );
      // Searched for what ACME's rows hold: a shelf name, a book title nested in a shelf.
      for (const [path, term] of [
        ['/books', 'Ode'],
        ['/shelves', 'Sonnet'],
      ] as const) {
        const listed = await get(path, 'alice', tenant, 'admin');
        expect(listed.status, `${path} ${tenant}`).to.equal(200);
        expect(listed.body.totalItemCount, `${path} ${tenant}`).to.equal(0);
        const searched = await get(`${path}?search=${term}`, 'alice', tenant, 'admin');
        expect(searched.status, `${path} search ${tenant}`).to.equal(200);
        expect(searched.body.items, `${path} search ${tenant}`).to.deep.equal([]);
      }
      expect((await get(`/shelves/${idOf(1)}/books`, 'alice', tenant, 'admin')).status).to.equal(
        404,
      );
    }
    expect(await loadRow(db.knex, books, idOf(2), acme('alice'))).to.include({ title: 'Odes' });
    const found = await get('/shelves?search=Sonnet', 'root', 'ACME', 'admin');
    expect(found.body.items.map((s: { id: string }) => s.id)).to.deep.equal([idOf(1)]);
  });

  it('answers 422 to a reference naming another tenant’s row, exactly as to a missing one', async () => {
    const other: Caller = { principal: 'alice', tenant: 'acme ' };
    const refused = await failure(
      insertEntity(db.knex, books, book(10, 'Elsewhere', '333', idOf(1)), other),
    );
    expect(refused).to.be.instanceOf(ProblemError).with.property('status', 422);
    const missing = await failure(
      insertEntity(db.knex, books, book(11, 'Nowhere', '333', idOf(99)), other),
    );
    const body = (e: unknown) => (e as ProblemError).toProblem('/').errors;
    expect((refused as ProblemError).toProblem('/').code).to.equal('crud.invalid_reference');
    expect(body(refused)).to.have.length(1);
    expect(body(missing)).to.have.length(1);
    const moved = await failure(
      changeEntity(db.knex, books, idOf(2), acme('alice'), (b) => void (b.shelfId = idOf(98))),
    );
    expect(moved).to.have.property('status', 422);
  });

  it('holds a unique value once per tenant: a look-alike tenant may take it, the same tenant may not', async () => {
    for (const [n, tenant] of LOOKALIKES.entries()) {
      const row = await insertEntity(db.knex, books, book(20 + n, 'Odes', '111'), {
        principal: 'alice',
        tenant,
      });
      expect(row, tenant).to.include({ isbn: '111', tenant_id: tenant });
    }
    const again = await failure(
      insertEntity(db.knex, books, book(30, 'Again', '111'), acme('carol')),
    );
    expect(again).to.be.instanceOf(ProblemError).with.property('status', 409);
    expect((again as ProblemError).toProblem('/')).to.deep.include({ fields: ['isbn'] });
    for (const [n] of LOOKALIKES.entries())
      await db
        .knex('tenant_books')
        .where({ id: idOf(20 + n) })
        .delete();
  });

  it('refuses a caller without a tenant: 403 auth.tenant_required, never every tenant’s rows', async () => {
    const none: Caller = { principal: 'alice', roles: ['admin'] };
    for (const step of [
      insertEntity(db.knex, books, book(40, 'No tenant', '444'), none),
      loadRow(db.knex, books, idOf(2), none),
      deleteEntity(db.knex, books, idOf(2), none),
    ]) {
      const refused = await failure(step);
      expect(refused).to.be.instanceOf(ProblemError).with.property('status', 403);
      expect((refused as ProblemError).toProblem('/').code).to.equal('auth.tenant_required');
    }
    const listed = await get('/books', 'alice', undefined, 'admin');
    expect(listed.status).to.equal(403);
    expect(listed.body).to.include({ code: 'auth.tenant_required' });
    expect((await get(`/shelves/${idOf(1)}/books`, 'alice')).status).to.equal(403);
  });

  it("lets a bypass role reach every owner's rows of its own tenant, and records who changed them", async () => {
    expect(await visibleRows(db.knex, books, acme('alice'))).to.have.length(1);
    expect(await visibleRows(db.knex, books, acme('root', ['admin']))).to.have.length(2);
    expect(
      await failure(loadRow(db.knex, books, idOf(3), acme('alice', ['clerk']))),
    ).to.have.property('status', 404);
    const changed = await changeEntity(db.knex, books, idOf(3), acme('root', ['admin']), (b) => {
      b.title = 'Sonnets, revised';
    });
    expect(books.fromRow(changed)).to.include({
      ownedBy: 'bob',
      updatedBy: 'root',
      createdBy: 'bob',
    });
    // Nested members and lists follow the same scope.
    const own = await get('/shelves', 'alice', 'ACME');
    expect(own.body.items[0].books.map((b: { id: string }) => b.id)).to.deep.equal([idOf(2)]);
    const every = await get('/shelves', 'root', 'ACME', 'admin');
    expect(every.body.items[0].books).to.have.length(2);
    expect((await get('/books', 'root', 'ACME', 'admin')).body.totalItemCount).to.equal(2);
    expect((await get('/books', 'alice', 'ACME')).body.totalItemCount).to.equal(1);
    const nested = await get(`/shelves/${idOf(1)}/books`, 'root', 'ACME', 'admin');
    expect(nested.body.totalItemCount).to.equal(2);
    const one = await get(`/books/${idOf(3)}`, 'root', 'ACME', 'admin');
    expect(one.body.shelf).to.deep.equal({ id: idOf(1), name: 'Poetry' });
  });

  it('shows a related row of another tenant as absent (null), written by other means', async () => {
    await db.knex('tenant_shelves').insert({ id: idOf(50), name: 'Foreign', tenant_id: 'acme ' });
    await db
      .knex('tenant_books')
      .where({ id: idOf(2) })
      .update({ shelf_id: idOf(50) });
    const res = await get(`/books/${idOf(2)}`, 'alice', 'ACME');
    expect(res.status).to.equal(200);
    expect(res.body.shelf).to.equal(null);
    const filtered = await get('/books?filter=shelf.name:Equal:Foreign', 'alice', 'ACME');
    expect(filtered.body.totalItemCount).to.equal(0);
    await db
      .knex('tenant_books')
      .where({ id: idOf(2) })
      .update({ shelf_id: idOf(1) });
  });
});
