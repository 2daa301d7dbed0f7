// The tables and helpers the access tests share (soft delete, restore, tenants): soft-deleting
// authors, their books (cascade) on shelves (restrict) and the books' stickers (restrict), as
// generated code defines them, the list resources a generated DTO reads them with, and an app's
// caller taken from request headers.
import { expect } from 'chai';
import type { Express, RequestHandler } from 'express';
import type { Knex } from 'knex';
import { defineEntityTable, insertEntity, type EntityTable } from '@slicekit/runtime/crud';
import { liveUniqueMigration } from '@slicekit/runtime/database';
import { outboxMigration } from '@slicekit/runtime/events';
import { ProblemError } from '@slicekit/runtime/http';
import { defineListResource } from '@slicekit/runtime/list-query';
import request from 'supertest';

/** The error `p` fails with, or undefined when it succeeds. */
export const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

/** The problem+json of a thrown `ProblemError` (failing the test for anything else). */
export function problemOf(error: unknown): Record<string, unknown> & { status?: number } {
  expect(error).to.be.instanceOf(ProblemError);
  return (error as ProblemError).toProblem();
}

/**
 * Sets `req.user` from the `x-user`, `x-roles` (comma-separated) and `x-tenant` headers (the
 * tenant URI-encoded, since HTTP trims header values); no `x-user`, an anonymous caller.
 */
export const callerFromHeaders: RequestHandler = (req, _res, next) => {
  const user = req.header('x-user');
  const tenant = req.header('x-tenant');
  if (user !== undefined) {
    req.user = {
      id: user,
      roles: (req.header('x-roles') ?? '').split(',').filter(Boolean),
      ...(tenant === undefined ? {} : { tenant: decodeURIComponent(tenant) }),
    };
  }
  next();
};

/** `GET path` on `app` as `user` (anonymous without one) of `tenant`, holding `roles` (a,b). */
export function getAs(app: Express, path: string, user?: string, tenant?: string, roles = '') {
  const req = request(app).get(path);
  if (user !== undefined) void req.set('x-user', user).set('x-roles', roles);
  return tenant === undefined ? req : req.set('x-tenant', encodeURIComponent(tenant));
}

/** The soft delete's columns, as the generated migration adds them. */
export function softDeleteColumns(t: Knex.CreateTableBuilder): void {
  t.datetime('deleted_on', { precision: 3 }).nullable();
  t.string('deleted_by', 255).nullable();
  t.uuid('deletion_id').nullable();
}

/** The soft delete's members of an entity. */
class SoftDeleted {
  deletedOn: Date | null = null;
  deletedBy: string | null = null;
  deletionId: string | null = null;
}

export class Author extends SoftDeleted {
  id = '';
  email = '';
}

export class Shelf extends SoftDeleted {
  id = '';
  code = '';
}

export class Book extends SoftDeleted {
  id = '';
  title = '';
  authorId: string | null = null;
  shelfId: string | null = null;
  /** The shelves it is on display on: a many-to-many. */
  displayIds: string[] = [];
}

export class Sticker extends SoftDeleted {
  id = '';
  bookId = '';
}

const uuid = { type: 'string', format: 'uuid' };

// Authors with their books (a collection), as a generated DTO reads them: a deleted book is no
// member. The authors' table declares it, so a change's If-Match is held to the tag a GET sends.
export const authorList = defineListResource({
  table: 'sd_authors',
  dto: {
    type: 'object',
    properties: {
      id: uuid,
      email: { type: 'string' },
      books: { type: 'array', items: { type: 'object', properties: { id: uuid } } },
    },
  },
  columns: {
    books: {
      collection: { table: 'sd_books', foreignKey: 'author_id', deletedColumn: 'deleted_on' },
    },
  },
});

export const authors = defineEntityTable({
  table: 'sd_authors',
  entity: Author,
  fields: { id: 'uuid', email: 'string' },
  softDelete: true,
  dto: authorList,
  unique: [['email']],
  events: [
    { operation: 'Deleted', fields: ['email'] },
    { operation: 'Restored', fields: ['email'] },
  ],
});

export const shelves = defineEntityTable({
  table: 'sd_shelves',
  entity: Shelf,
  fields: { id: 'uuid', code: 'string' },
  softDelete: true,
});

// A book goes with its author (cascade); a shelf holding a live book stays (restrict).
export const books = defineEntityTable({
  table: 'sd_books',
  entity: Book,
  fields: { id: 'uuid', title: 'string', authorId: 'reference', shelfId: 'reference' },
  softDelete: true,
  unique: [['title']],
  references: {
    authorId: { to: () => authors, onDelete: 'cascade' },
    shelfId: { to: () => shelves, onDelete: 'restrict' },
  },
  links: {
    displayIds: {
      to: () => shelves,
      joinTable: 'sd_book_displays',
      localKey: 'book_id',
      foreignKey: 'shelf_id',
    },
  },
});

// Restrict under a soft delete counts the live stickers only.
export const stickers = defineEntityTable({
  table: 'sd_stickers',
  entity: Sticker,
  fields: { id: 'uuid', bookId: 'reference' },
  softDelete: true,
  references: { bookId: { to: () => books, onDelete: 'restrict' } },
});

// Books with their author (a relation), as a generated DTO reads them: a deleted row is no
// related row.
export const bookList = defineListResource({
  table: 'sd_books',
  dto: {
    type: 'object',
    properties: {
      id: uuid,
      title: { type: 'string' },
      author: {
        type: ['object', 'null'],
        properties: { id: uuid, email: { type: 'string' } },
      },
    },
  },
  columns: {
    author: {
      relation: { table: 'sd_authors', localColumn: 'author_id', deletedColumn: 'deleted_on' },
    },
  },
});

/** Creates the tables above (unique among live rows) and the outbox. */
export async function createAccessTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('sd_authors', (t) => {
    t.uuid('id').primary();
    t.string('email', 200).notNullable();
    softDeleteColumns(t);
  });
  await liveUniqueMigration({ table: 'sd_authors', unique: [['email']] }).up(knex);
  await knex.schema.createTable('sd_shelves', (t) => {
    t.uuid('id').primary();
    t.string('code', 20).notNullable();
    softDeleteColumns(t);
  });
  await knex.schema.createTable('sd_books', (t) => {
    t.uuid('id').primary();
    t.string('title', 200).notNullable();
    t.uuid('author_id').nullable().references('id').inTable('sd_authors');
    t.uuid('shelf_id').nullable().references('id').inTable('sd_shelves');
    softDeleteColumns(t);
  });
  await liveUniqueMigration({ table: 'sd_books', unique: [['title']] }).up(knex);
  await knex.schema.createTable('sd_book_displays', (t) => {
    t.uuid('book_id').notNullable().references('id').inTable('sd_books').onDelete('cascade');
    t.uuid('shelf_id').notNullable().references('id').inTable('sd_shelves').onDelete('cascade');
    t.primary(['book_id', 'shelf_id']);
  });
  await knex.schema.createTable('sd_stickers', (t) => {
    t.uuid('id').primary();
    t.uuid('book_id').notNullable().references('id').inTable('sd_books');
    softDeleteColumns(t);
  });
  await outboxMigration().up(knex);
}

/**
 * Makes rows of the tables above on `db.knex` (read when called, inside a test), each id of its
 * own: `prefix` and a count (a UUID's first four groups). Answers each row's id.
 */
export function accessRows(db: { readonly knex: Knex }, prefix: string) {
  let n = 0;
  const nextId = () => `${prefix}-${String(++n).padStart(12, '0')}`;
  const insert = async <E extends { id: string }>(table: EntityTable<E>, row: E) => {
    await insertEntity(db.knex, table, row, '');
    return row.id;
  };
  return {
    nextId,
    author(email?: string) {
      const id = nextId();
      return insert(authors, Object.assign(new Author(), { id, email: email ?? `a${id}@ex.com` }));
    },
    shelf() {
      const id = nextId();
      return insert(shelves, Object.assign(new Shelf(), { id, code: `S${id.slice(-6)}` }));
    },
    book(
      authorId: string | null,
      shelfId: string | null = null,
      title?: string,
      displayIds: string[] = [],
    ) {
      const id = nextId();
      const values = { id, title: title ?? `Book ${id.slice(-6)}`, authorId, shelfId, displayIds };
      return insert(books, Object.assign(new Book(), values));
    },
    sticker(bookId: string) {
      return insert(stickers, Object.assign(new Sticker(), { id: nextId(), bookId }));
    },
  };
}
