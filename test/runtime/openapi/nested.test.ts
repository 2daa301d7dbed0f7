// The OpenAPI document of related slices: a one-to-many's nested route is a list under one row of
// its parent (its id, 404 for an unknown parent), a nested DTO member and an id list are schemas.
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { buildOpenApiDocument, type SliceDescription } from '@slicekit/runtime/openapi';

const uuid = { type: 'string', format: 'uuid' };
const orderSlice: SliceDescription = {
  entity: 'OrderLine',
  path: '/v1/order-lines',
  dto: {
    type: 'object',
    properties: {
      id: uuid,
      orderId: uuid,
      order: { type: ['object', 'null'], properties: { id: uuid }, required: ['id'] },
    },
  },
  operations: [
    { kind: 'list' },
    { kind: 'list', parent: { entity: 'Order', path: '/v1/orders', segment: 'lines' } },
    { kind: 'create', request: { type: 'object', properties: { orderId: uuid } } },
  ],
};

describe('OpenAPI document of nested routes', () => {
  const document = buildOpenApiDocument([orderSlice]);

  it('validates against the OpenAPI 3.1 schema', async () => {
    const result = await new Validator().validate(
      structuredClone(document) as unknown as Record<string, unknown>,
    );
    expect(result.errors ?? []).to.deep.equal([]);
  });

  it('lists the one-to-many under its parent with the id parameter and a 404', () => {
    const item = document.paths['/v1/orders/{id}/lines']!;
    expect(item.parameters).to.deep.equal([
      { name: 'id', in: 'path', required: true, schema: uuid },
    ]);
    const get = item.get as {
      operationId: string;
      summary: string;
      parameters: { name?: string }[];
      responses: Record<string, { description: string }>;
    };
    expect(get.operationId).to.equal('listOrderLines');
    expect(get.summary).to.match(/^List the order line records of an order/);
    expect(get.parameters.map((p) => p.name)).to.include.members(['filter', 'orderBy', 'search']);
    expect(get.responses['404']!.description).to.contain('No Order with this id');
    expect(Object.keys(document.paths).sort()).to.deep.equal([
      '/v1/order-lines',
      '/v1/orders/{id}/lines',
    ]);
  });
});
