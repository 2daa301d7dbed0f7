// The spec's Product scenarios, over HTTP against a running app with the sample Product slice
// (spec/crud-slice-and-list-query.md: "Sample entity Product", "Endpoints", "Errors").
import { expect } from 'chai';
import request from 'supertest';

const dtoFields = [
  'createdBy',
  'createdOn',
  'id',
  'isDiscontinued',
  'name',
  'price',
  'updatedBy',
  'updatedOn',
];
const isoUtc = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const unknownId = '00000000-0000-4000-8000-000000000000';

interface ProductDto {
  id: string;
  name: string;
  price: number;
  isDiscontinued: boolean;
  createdBy: string;
  createdOn: string;
  updatedBy: string;
  updatedOn: string;
}

function expectProblem(res: request.Response, status: number): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.type).to.equal('application/problem+json');
  expect(res.body).to.include({ status });
}

/**
 * Declares the Product scenarios; `baseUrl` is read when the tests run. The suite creates its own
 * products and only counts rows it made, so seeded rows do not disturb it.
 */
export function describeProductScenarios(baseUrl: () => string): void {
  describe('Product API (the spec scenarios)', () => {
    const api = () => request(baseUrl());
    const tag = `e2e${Math.random().toString(36).slice(2, 8)}`;
    let product: ProductDto;

    it('creates a product: 201, the DTO, Location of the new resource', async () => {
      const res = await api()
        .post('/v1/products')
        .send({ name: `${tag} Desk lamp`, price: 24.99 });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      product = res.body as ProductDto;
      expect(Object.keys(product).sort()).to.deep.equal(dtoFields);
      expect(product).to.include({
        name: `${tag} Desk lamp`,
        price: 24.99,
        isDiscontinued: false,
        createdBy: '',
        updatedBy: '',
      });
      expect(product.createdOn).to.match(isoUtc);
      expect(product.updatedOn).to.match(isoUtc);
      expect(res.headers.location).to.match(new RegExp(`/v1/products/${product.id}$`));
    });

    it('gets it by id, and 404 problem+json for an unknown id', async () => {
      const res = await api().get(`/v1/products/${product.id}`).expect(200);
      expect(res.body).to.deep.equal(product);
      expectProblem(await api().get(`/v1/products/${unknownId}`), 404);
    });

    it('keeps decimals exact: a JSON number with the stored value', async () => {
      const res = await api()
        .post('/v1/products')
        .send({ name: `${tag} Safe`, price: 1234567.89 });
      expect(res.status).to.equal(201);
      expect(res.text).to.contain('"price":1234567.89');
      const read = await api().get(`/v1/products/${(res.body as ProductDto).id}`);
      expect(read.text).to.contain('"price":1234567.89');
    });

    it('validates requests: 400 problem+json listing each field error', async () => {
      const res = await api()
        .post('/v1/products')
        .send({ name: 'x'.repeat(151), price: 0 });
      expectProblem(res, 400);
      const fields = (res.body as { errors: { field: string }[] }).errors.map((e) => e.field);
      expect(fields).to.include.members(['name', 'price']);
      expectProblem(await api().post('/v1/products').send({ price: 5 }), 400);
    });

    it('changes the price with PUT (the first update method): 200 DTO, 404 unknown', async () => {
      // The id is the route's: one in the body is refused, naming it.
      const withId = await api()
        .put(`/v1/products/${product.id}`)
        .send({ id: unknownId, price: 19.5 });
      expectProblem(withId, 400);
      expect(
        (withId.body as { errors: { field: string }[] }).errors.map((e) => e.field),
      ).to.deep.equal(['id']);
      const res = await api().put(`/v1/products/${product.id}`).send({ price: 19.5 }).expect(200);
      expect(res.body).to.include({ id: product.id, price: 19.5 });
      expectProblem(await api().put(`/v1/products/${unknownId}`).send({ price: 3 }), 404);
    });

    it('approves with POST /approval, recording the updater: 200 DTO', async () => {
      const res = await api()
        .post(`/v1/products/${product.id}/approval`)
        .send({ byUser: 'alice' })
        .expect(200);
      expect(res.body).to.include({ id: product.id, updatedBy: 'alice' });
      expectProblem(
        await api().post(`/v1/products/${unknownId}/approval`).send({ byUser: 'bob' }),
        404,
      );
    });

    it('discontinues with PUT /discontinue, and again: 200 DTO both times', async () => {
      for (let i = 0; i < 2; i++) {
        const res = await api().put(`/v1/products/${product.id}/discontinue`).expect(200);
        expect(res.body).to.include({ id: product.id, isDiscontinued: true });
      }
      expectProblem(await api().put(`/v1/products/${unknownId}/discontinue`), 404);
    });

    it('lists with search, filter, order and paging as a PagedResponse', async () => {
      await api()
        .post('/v1/products')
        .send({ name: `${tag} Desk chair`, price: 89 })
        .expect(201);
      const res = await api()
        .get('/v1/products')
        .query({ search: tag, filter: 'price:GreaterThan:20', orderBy: 'price', desc: 'true' })
        .query({ pageSize: 2, pageNumber: 1 })
        .expect(200);
      expect(res.body).to.include({
        pageNumber: 1,
        pageSize: 2,
        totalItemCount: 2,
        pageCount: 1,
        hasNextPage: false,
        hasPreviousPage: false,
      });
      const items = (res.body as { items: ProductDto[] }).items;
      expect(items.map((p) => p.name)).to.deep.equal([`${tag} Safe`, `${tag} Desk chair`]);
    });

    it('clamps paging and refuses malformed list queries with 400', async () => {
      const res = await api().get('/v1/products').query({ pageSize: 1000, pageNumber: 0 });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ pageSize: 100, pageNumber: 1 });
      for (const query of [
        { filter: 'nope:Equal:1' },
        { filter: 'price:Equal:cheap' },
        { orderBy: 'ownedBy' },
        { search: 'a' },
      ]) {
        expectProblem(await api().get('/v1/products').query(query), 400);
      }
    });

    it('deletes: 204, then 404', async () => {
      await api().delete(`/v1/products/${product.id}`).expect(204);
      expectProblem(await api().delete(`/v1/products/${product.id}`), 404);
      expectProblem(await api().get(`/v1/products/${product.id}`), 404);
    });
  });
}
