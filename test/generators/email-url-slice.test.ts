// The email and url field kinds, which exist only as entries of the field-kind registry, and
// unique fields: a slice generated with them migrates, validates addresses, filters on them and
// refuses a second row with the same email in any case (409 naming it) on every database, while a
// plain unique string compares exactly there too.
import { expect } from 'chai';
import type { Express } from 'express';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { useScratchSlices } from '../support/scratch-slices.js';
import { describeEachDatabase } from '../support/services.js';

const slices = useScratchSlices('email-url', [
  {
    name: 'Contact',
    fields: 'name:string(100)!, email:email!:unique, website:url, handle:string(30):unique',
  },
]);
const scratch = slices.dir;

describe('a slice with email and url fields, as generated', () => {
  it('declares the columns, schemas and types of the registry', () => {
    const [migration] = readdirSync(join(scratch, 'migrations'));
    const text = readFileSync(join(scratch, 'migrations', migration!), 'utf8');
    expect(text).to.contain("table.string('email', 320).notNullable();");
    expect(text).to.contain("table.string('website', 2048);");
    expect(text).to.contain(
      "uniqueIndexMigration({ table: 'contacts', column: 'email', ignoreCase: true })",
    );
    expect(text).to.contain("uniqueIndexMigration({ table: 'contacts', column: 'handle' })");
    const table = readFileSync(join(scratch, 'src/slices/contacts/contact.table.ts'), 'utf8');
    expect(table).to.contain("unique: [['email'], ['handle']]");
    expect(table).to.contain("ignoreCase: ['email']");
    // Whitespace folded: Prettier breaks long objects over lines.
    const requests = readFileSync(
      join(scratch, 'src/slices/contacts/contact.requests.ts'),
      'utf8',
    ).replace(/\s+/g, ' ');
    expect(requests).to.contain(
      "email: { type: 'string', format: 'email', minLength: 1, maxLength: 320 }",
    );
    expect(requests).to.contain(
      "website: { type: ['string', 'null'], format: 'uri', maxLength: 2048 }",
    );
    const dto = readFileSync(join(scratch, 'src/slices/contacts/contact.dto.ts'), 'utf8');
    expect(dto.replace(/\s+/g, ' ')).to.contain("email: { type: 'string', format: 'email' }");
  });
});

describeEachDatabase('a slice with email and url fields', (db) => {
  let app: Express;
  before(async () => {
    await slices.migrate(db.knex);
    app = await slices.app(db.knex);
  });

  it('stores and answers addresses, and filters on them', async () => {
    const created = await request(app)
      .post('/v1/contacts')
      .send({ name: 'Ana Souza', email: 'ana@example.com', website: 'https://example.com/ana' });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({
      email: 'ana@example.com',
      website: 'https://example.com/ana',
    });
    const found = await request(app)
      .get('/v1/contacts')
      .query({ filter: 'email:Equal:ana@example.com' });
    expect(found.status).to.equal(200);
    expect(found.body.totalItemCount).to.equal(1);
  });

  it('refuses a second contact with the same email: 409 problem+json naming email', async () => {
    const res = await request(app)
      .post('/v1/contacts')
      .send({ name: 'Ana Lima', email: 'ana@example.com' });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.type).to.equal('application/problem+json');
    expect(res.body).to.include({ code: 'crud.duplicate' });
    expect(res.body.fields).to.deep.equal(['email']);
    const variant = await request(app)
      .post('/v1/contacts')
      .send({ name: 'Ana Lima', email: 'ANA@Example.com' });
    expect(variant.status, JSON.stringify(variant.body)).to.equal(409);
    expect(variant.body.fields).to.deep.equal(['email']);
    const all = await request(app).get('/v1/contacts');
    expect(all.body.totalItemCount).to.equal(1);
  });

  it('keeps a unique string exact: handles differing in case are two', async () => {
    for (const [email, handle] of [
      ['lars@example.com', 'lars'],
      ['lars.b@example.com', 'Lars'],
    ]) {
      const res = await request(app).post('/v1/contacts').send({ name: 'Lars', email, handle });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const again = await request(app)
      .post('/v1/contacts')
      .send({ name: 'Lars', email: 'lars.c@example.com', handle: 'Lars' });
    expect(again.status).to.equal(409);
    expect(again.body.fields).to.deep.equal(['handle']);
  });

  it('answers 400 naming the field for an address that is not one', async () => {
    const res = await request(app)
      .post('/v1/contacts')
      .send({ name: 'Kenji Tanaka', email: 'kenji.example.com', website: 'example.com/kenji' });
    expect(res.status).to.equal(400);
    const fields = (res.body.errors as { field: string }[]).map((e) => e.field);
    expect(fields).to.have.members(['email', 'website']);
  });
});
