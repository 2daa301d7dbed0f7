// A NUL character (U+0000) in a request is refused with 400 on SQLite, PostgreSQL and MySQL alike:
// PostgreSQL cannot store one in text (it answered 500) and the others stored it. Checked in a
// body with validation on and off, and in a text id on the path.
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import {
  crudRoute,
  defineEntityTable,
  deleteEntity,
  loadRow,
  nulCharacterErrors,
  validateBody,
} from '@slicekit/runtime/crud';
import { describeEachDatabase } from '../../support/services.js';

class Note {
  code = '';
  title = '';
}

const notes = defineEntityTable({
  table: 'nul_notes',
  entity: Note,
  fields: { code: 'string', title: 'string' },
  idProperty: 'code',
});

const schema = {
  type: 'object',
  properties: { code: { type: 'string', maxLength: 20 }, title: { type: 'string' } },
  required: ['code', 'title'],
};

describeEachDatabase('NUL characters in requests', (db) => {
  let app: Express;

  before(async () => {
    await db.knex.schema.createTable('nul_notes', (t) => {
      t.string('code', 20).primary();
      t.string('title', 100);
    });
    app = express();
    app.use(express.json());
    for (const [path, enabled] of [
      ['/checked', true],
      ['/unchecked', false],
    ] as const) {
      app.post(
        path,
        validateBody(schema, { enabled }),
        crudRoute(async (req, res) => {
          await db.knex('nul_notes').insert({ code: req.body.code, title: req.body.title });
          res.status(201).end();
        }),
      );
    }
    app.get(
      '/notes/:id',
      crudRoute(async (req, res) => {
        res.json(await loadRow(db.knex, notes, req.params.id as string));
      }),
    );
    app.delete(
      '/notes/:id',
      crudRoute(async (req, res) => {
        await deleteEntity(db.knex, notes, req.params.id as string);
        res.status(204).end();
      }),
    );
  });

  for (const path of ['/checked', '/unchecked']) {
    it(`refuses a NUL in a body string on ${path}, naming the field, storing nothing`, async () => {
      const res = await request(app)
        .post(path)
        .send({ code: 'n1', title: 'Desk\u0000Lamp', extra: { tags: ['ok', 'b\u0000d'] } });
      expect(res.status).to.equal(400);
      expect(res.type).to.equal('application/problem+json');
      expect(res.body).to.include({ code: 'crud.invalid_request' });
      expect(res.body.errors).to.deep.equal([
        {
          field: 'title',
          message: 'must not contain a NUL character (U+0000)',
          keyword: 'x-no-nul-character',
        },
        {
          field: 'extra.tags.1',
          message: 'must not contain a NUL character (U+0000)',
          keyword: 'x-no-nul-character',
        },
      ]);
      expect(await db.knex('nul_notes').select('code')).to.deep.equal([]);
    });
  }

  it('lists schema errors and NUL errors together when validation is on', async () => {
    const res = await request(app)
      .post('/checked')
      .send({ code: 'x'.repeat(21), title: 'a\u0000' });
    expect(res.status).to.equal(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['code', 'title']);
  });

  it('refuses a NUL in a text id on the path with 400, on every database', async () => {
    await db.knex('nul_notes').insert({ code: 'n2', title: 'Lamp' });
    for (const method of ['get', 'delete'] as const) {
      const res = await request(app)[method]('/notes/n2%00x');
      expect(res.status, method).to.equal(400);
      expect(res.body.errors).to.deep.equal([
        {
          field: 'id',
          message: 'must be non-empty text without NUL characters',
          keyword: 'format',
        },
      ]);
    }
    const found = await request(app).get('/notes/n2');
    expect(found.status).to.equal(200);
  });
});

describe('nulCharacterErrors', () => {
  it('finds NUL in values and property names at any depth, and nothing in clean bodies', () => {
    expect(nulCharacterErrors({ a: 'fine', b: [1, true, null, { c: 'ok' }] })).to.deep.equal([]);
    expect(nulCharacterErrors({ 'na\u0000me': 1 }).map((e) => e.field)).to.deep.equal([
      'na\u0000me',
    ]);
    expect(nulCharacterErrors('\u0000').map((e) => e.field)).to.deep.equal(['']);
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 50_000; i += 1) deep = [deep];
    expect(nulCharacterErrors(deep)).to.have.length(1);
  });
});
