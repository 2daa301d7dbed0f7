// The admin's data provider (@slicekit/runtime/admin) against a running server built from the
// runtime's own parts, on SQLite: the list engine's handler (pages by number, then by cursor, sort,
// filters, the count) and slice routes over an entity table (the ETag and If-Match, 412 on a stale
// row, the request schema's 400 field errors). Each answer is compared with what the server itself
// answers to the same question, and each request the provider sends is read as the server saw it.
import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import {
  AdminHttpError,
  createDataProvider,
  ETAG_KEY,
  STALE_ROW_MESSAGE,
  type AdminRecord,
} from '@slicekit/runtime/admin';
import {
  changeEntity,
  defineEntityTable,
  loadRow,
  sendEntity,
  sliceRoute,
} from '@slicekit/runtime/crud';
import { listHandler } from '@slicekit/runtime/list-query';
import { useDatabase } from '../../support/services.js';
import { createDataset, items } from '../list-query/fixture.js';

class Note {
  id!: string;
  text!: string;
}

const notes = defineEntityTable({
  table: 'admin_notes',
  entity: Note,
  fields: { id: 'string', text: 'string' },
});

const noteSchema = {
  type: 'object',
  properties: { text: { type: 'string', minLength: 1, maxLength: 20 } },
  required: ['text'],
  additionalProperties: false,
} as const;

type Page = { items: AdminRecord[]; totalItemCount: number };

describe('admin data provider against the runtime', function () {
  this.timeout(30_000);
  const db = useDatabase('sqlite');
  let server: Server;
  let base = '';
  /** Each request as the server saw it: its URL and headers. */
  const seen: { method: string; url: string; headers: Record<string, unknown> }[] = [];

  before(async () => {
    await createDataset(db.knex);
    await db.knex.schema.createTable('admin_notes', (t) => {
      t.string('id', 20).primary();
      t.string('text', 20).notNullable();
    });
    await db.knex('admin_notes').insert({ id: 'n1', text: 'first' });
    const app = express();
    app.use(express.json());
    app.use((req, _res, next) => {
      seen.push({ method: req.method, url: req.url, headers: { ...req.headers } });
      next();
    });
    app.get('/items', listHandler(items, db.knex));
    app.get(
      '/notes/:id',
      sliceRoute(async ({ id, caller }, res) => {
        sendEntity(res, await loadRow(db.knex, notes, id, caller));
      }),
    );
    app.put(
      '/notes/:id',
      sliceRoute(noteSchema, async ({ id, body, caller }, res) => {
        const text: string = body.text;
        sendEntity(
          res,
          await changeEntity(db.knex, notes, id, caller, (n) => {
            n.text = text;
          }),
        );
      }),
    );
    app.post(
      '/notes',
      sliceRoute(noteSchema, async ({ body }, res) => {
        const id = `n${Date.now()}`;
        await db.knex('admin_notes').insert({ id, text: body.text });
        res.status(201).json({ id, text: body.text });
      }),
    );
    server = app.listen(0);
    await new Promise((ready) => server.once('listening', ready));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((done) => server.close(done)));

  const direct = async (path: string) => (await (await fetch(`${base}${path}`)).json()) as Page;
  const ids = (rows: { id: unknown }[]) => rows.map((r) => r.id);
  const provider = (requiresKey = {}) => createDataProvider({ apiUrl: base, requiresKey });

  it('pages by number, with the total the API counts', async () => {
    const page = await provider().getList('items', {
      pagination: { page: 2, perPage: 25 },
      sort: { field: 'id', order: 'ASC' },
    });
    expect(seen.at(-1)!.headers.prefer).to.equal('count=exact');
    const api = await direct('/items?pageSize=25&pageNumber=2');
    expect(ids(page.data)).to.deep.equal(ids(api.items));
    expect('total' in page && page.total).to.equal(60);
  });

  it('reads the page after one already read by its cursor', async () => {
    const dp = provider();
    const query = { sort: { field: 'price', order: 'ASC' }, filter: {} };
    await dp.getList('items', { ...query, pagination: { page: 1, perPage: 7 } });
    const second = await dp.getList('items', { ...query, pagination: { page: 2, perPage: 7 } });
    expect(seen.at(-1)!.url).to.match(/[?&]cursor=/);
    expect(seen.at(-1)!.url).not.to.match(/pageNumber=/);
    const api = await direct('/items?orderBy=price&pageSize=7&pageNumber=2');
    expect(ids(second.data)).to.deep.equal(ids(api.items));
  });

  it('sorts descending and filters by operation, list and related member as the API does', async () => {
    const page = await provider().getList('items', {
      pagination: { page: 1, perPage: 100 },
      sort: { field: 'price', order: 'DESC' },
      // A dotted source arrives from React-Admin as nested objects.
      filter: {
        'price:GreaterThan': 10,
        status: ['draft', 'active'],
        category: { 'title:Contains': 'o' },
        unused: '',
      },
    });
    const api = await direct(
      '/items?orderBy=price&desc=true&pageSize=100&filter=price:GreaterThan:10&filter=status:In:draft,active&filter=category.title:Contains:o',
    );
    expect(api.items.length).to.be.above(0);
    expect(ids(page.data)).to.deep.equal(ids(api.items));
  });

  it('edits with If-Match from the row read, and maps a stale row to 412 with its message', async () => {
    const dp = provider();
    const { data: read } = await dp.getOne('notes', { id: 'n1' });
    expect(read[ETAG_KEY]).to.be.a('string');
    const { data: saved } = await dp.update('notes', {
      id: 'n1',
      data: { text: 'second' },
      previousData: read,
    });
    expect(seen.at(-1)!.headers['if-match']).to.equal(read[ETAG_KEY]);
    expect(saved).to.include({ text: 'second' });
    // Another page (a provider of its own) read the row before that change: its edit is refused,
    // the row kept.
    const error = await provider()
      .update('notes', { id: 'n1', data: { text: 'third' }, previousData: read })
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(AdminHttpError);
    expect(error).to.include({ status: 412, message: STALE_ROW_MESSAGE });
    expect((await dp.getOne('notes', { id: 'n1' })).data).to.include({ text: 'second' });
  });

  it("calls a row's own update (a show page button with no segment) at /{id}, with the update's key", async () => {
    // A merge-patch entity's edit form is the PATCH; its PUT update is a button on the show page.
    const dp = provider({ notes: { update: true } });
    const { data } = await dp.action('notes', {
      id: 'n1',
      segment: '',
      verb: 'PUT',
      data: { text: 'by button' },
    });
    expect(seen.at(-1)).to.include({ method: 'PUT', url: '/notes/n1' });
    expect(seen.at(-1)!.headers['x-idempotency-key']).to.match(/^[0-9a-f-]{36}$/);
    expect(data).to.include({ id: 'n1', text: 'by button' });
    // An update method of its own segment (`PUT /{id}/revise`) is keyed as an update too.
    await dp.action('notes', { id: 'n1', segment: 'revise', verb: 'PUT' }).catch(() => undefined);
    expect(seen.at(-1)).to.include({ method: 'PUT', url: '/notes/n1/revise' });
    expect(seen.at(-1)!.headers['x-idempotency-key']).to.match(/^[0-9a-f-]{36}$/);
  });

  it("sends a show page button's If-Match from the row read, and maps a stale row to 412 with its message", async () => {
    const dp = provider();
    const { data: read } = await dp.getOne('notes', { id: 'n1' });
    const button = { id: 'n1', segment: '', verb: 'PUT', previousData: read } as const;
    await dp.action('notes', { ...button, data: { text: 'clicked' } });
    expect(seen.at(-1)!.headers['if-match']).to.equal(read[ETAG_KEY]);
    // A second button clicked before the page read the row again: its own change is no conflict.
    await dp.action('notes', { ...button, data: { text: 'clicked twice' } });
    expect(seen.at(-1)!.headers['if-match']).not.to.equal(read[ETAG_KEY]);
    expect((await dp.getOne('notes', { id: 'n1' })).data).to.include({ text: 'clicked twice' });
    // Someone else's change is: the page (a provider of its own) read the row before it.
    const other = provider();
    const { data: before } = await other.getOne('notes', { id: 'n1' });
    await dp.action('notes', { ...button, data: { text: 'meanwhile' } });
    const error = await other
      .action('notes', { ...button, previousData: before, data: { text: 'stale' } })
      .catch((e: unknown) => e);
    expect(seen.at(-1)!.headers['if-match']).to.equal(before[ETAG_KEY]);
    expect(error).to.be.instanceOf(AdminHttpError);
    expect(error).to.include({ status: 412, message: STALE_ROW_MESSAGE });
    expect((await dp.getOne('notes', { id: 'n1' })).data).to.include({ text: 'meanwhile' });
    // A row read from a list carries no tag: no If-Match (a list's Restore button).
    await dp.action('notes', { id: 'n1', segment: '', verb: 'PUT', data: { text: 'listed' } });
    expect(seen.at(-1)!.headers).not.to.have.property('if-match');
  });

  it("maps a problem's field errors to the fields, beside which the form shows them", async () => {
    const error = (await provider()
      .create('notes', { data: { text: 'x'.repeat(21) } })
      .catch((e: unknown) => e)) as AdminHttpError;
    expect(error.status).to.equal(400);
    expect(error.body.errors).to.have.keys('text');
    expect(error.body.errors!.text).to.be.a('string').and.not.equal('');
  });

  it('sends a fresh idempotency key only with the operations whose routes require one', async () => {
    await provider().create('notes', { data: { text: 'no key' } });
    expect(seen.at(-1)!.headers).not.to.have.property('x-idempotency-key');
    const keyed = provider({ notes: { create: true } });
    await keyed.create('notes', { data: { text: 'keyed' } });
    const first = seen.at(-1)!.headers['x-idempotency-key'];
    await keyed.create('notes', { data: { text: 'keyed again' } });
    const second = seen.at(-1)!.headers['x-idempotency-key'];
    expect(first).to.match(/^[0-9a-f-]{36}$/);
    expect(second)
      .to.match(/^[0-9a-f-]{36}$/)
      .and.not.equal(first);
  });
});
