// The generated Product slice, run for real: generated into a scratch folder of this checkout,
// migrated and mounted on Express, then driven over HTTP on SQLite, PostgreSQL and MySQL.
import { expect } from 'chai';
import type { Express } from 'express';
import { join } from 'node:path';
import request from 'supertest';
import { repoRoot, useScratchSlices } from '../support/scratch-slices.js';
import { describeEachDatabase } from '../support/services.js';

const slices = useScratchSlices('entity-slice', [
  { specFile: join(repoRoot, 'docs/examples/product.yaml') },
]);
const unknownId = '00000000-0000-4000-8000-000000000000';

describeEachDatabase('the generated Product slice', (db) => {
  let app: Express;
  before(async () => {
    await slices.migrate(db.knex);
    app = await slices.app(db.knex);
  });

  it('creates with 201, Location, exact decimals and ISO UTC times', async () => {
    const res = await request(app)
      .post('/v1/products')
      .send({ name: 'Safe', price: 1234567890.12 });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.text).to.contain('"price":1234567890.12');
    expect(res.headers.location).to.equal(`/v1/products/${res.body.id}`);
    expect(res.body.createdOn).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Object.keys(res.body).sort()).to.deep.equal([
      'createdBy',
      'createdOn',
      'id',
      'isDiscontinued',
      'name',
      'price',
      'updatedBy',
      'updatedOn',
    ]);
  });

  it('answers 400 listing each field error, and 404 / 400 for unknown / malformed ids', async () => {
    const bad = await request(app).post('/v1/products').send({ name: '', price: 0.001 });
    expect(bad.status).to.equal(400);
    const fields = new Set(bad.body.errors.map((e: { field: string }) => e.field));
    expect([...fields]).to.have.members(['name', 'price']);
    expect(bad.body.instance).to.equal('/v1/products');
    const unknown = await request(app).get(`/v1/products/${unknownId}`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.include({ status: 404, instance: `/v1/products/${unknownId}` });
    const malformed = await request(app).get('/v1/products/not-a-uuid');
    expect(malformed.status).to.equal(400);
    expect(malformed.body).to.include({ status: 400, instance: '/v1/products/not-a-uuid' });
  });

  it('records the approver as updater, and stamps the caller otherwise', async () => {
    const created = await request(app).post('/v1/products').send({ name: 'Lamp', price: 24.99 });
    const id = created.body.id as string;
    const approved = await request(app)
      .post(`/v1/products/${id}/approval`)
      .send({ byUser: 'alice' });
    expect(approved.status).to.equal(200);
    expect(approved.body).to.include({ updatedBy: 'alice', price: 24.99 });
    const changed = await request(app).put(`/v1/products/${id}`).send({ price: 9.5 });
    expect(changed.body).to.include({ id, updatedBy: '', price: 9.5 });
    const discontinued = await request(app).put(`/v1/products/${id}/discontinue`);
    expect(discontinued.status).to.equal(200);
    expect(discontinued.body.isDiscontinued).to.equal(true);
  });

  it('lists with the engine: filter, order and paging', async () => {
    const res = await request(app)
      .get('/v1/products')
      .query({ filter: 'price:GreaterThan:10', orderBy: 'price', desc: 'true', pageSize: 1 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ totalItemCount: 1, pageSize: 1 });
    expect(res.body.items[0].price).to.equal(1234567890.12);
  });
});
