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
      tags: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      meta: { type: ['object', 'null'] },
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

  it('requires no member of a selected item, nor of its nested objects', () => {
    const schemas = document.components.schemas as Record<string, Record<string, unknown>>;
    const dto = schemas.OrderLineDto as { properties: { order: { required?: string[] } } };
    const selection = schemas.OrderLineDtoSelection as typeof dto;
    expect(dto.properties.order.required).to.deep.equal(['id']);
    expect(selection.properties.order).to.deep.equal({
      type: ['object', 'null'],
      properties: { id: uuid },
    });
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
    // What the engine orders by: scalar fields and a nested member's, never a whole object,
    // collection or JSON value.
    const orderBy = get.parameters.find((p) => p.name === 'orderBy') as {
      schema: { enum: string[] };
    };
    expect(orderBy.schema.enum).to.deep.equal(['id', 'orderId', 'order.id']);
    expect(Object.keys(document.paths).sort()).to.deep.equal([
      '/v1/order-lines',
      '/v1/orders/{id}/lines',
    ]);
  });
});

describe('OpenAPI document of references', () => {
  const customerSlice: SliceDescription = {
    entity: 'Customer',
    path: '/v1/customers',
    dto: { type: 'object', properties: { id: uuid } },
    operations: [{ kind: 'delete' }],
  };
  const document = buildOpenApiDocument([customerSlice, { ...orderSlice, references: ['Order'] }]);
  const responses = (method: string, path: string) =>
    (document.paths[path]![method] as { responses: Record<string, { description: string }> })
      .responses;

  it('documents 422 on the writes of a slice with references', () => {
    expect(responses('post', '/v1/order-lines')['422']!.description).to.contain(
      'A reference names no Order the caller can see',
    );
  });

  it('documents 409 only on the deletes of entities another slice refers to', () => {
    expect(responses('delete', '/v1/customers/{id}')).not.to.have.property('409');
    const referenced = buildOpenApiDocument([
      { ...customerSlice },
      { ...orderSlice, references: ['Customer'] },
    ]);
    const conflict = (
      referenced.paths['/v1/customers/{id}']!.delete as {
        responses: Record<string, { description: string }>;
      }
    ).responses['409']!;
    expect(conflict.description).to.contain('Other rows still refer to this Customer');
  });
});

describe('OpenAPI document of unique fields', () => {
  const document = buildOpenApiDocument([
    {
      ...orderSlice,
      unique: [{ fields: ['code'] }, { fields: ['email'], ignoreCase: true }],
    },
  ]);

  it('documents 409 crud.duplicate on the create, saying which index ignores case', () => {
    const create = document.paths['/v1/order-lines']!.post as {
      responses: Record<string, { description: string }>;
    };
    expect(create.responses['409']!.description).to.equal(
      'Another OrderLine already has this code (crud.duplicate); or another OrderLine already ' +
        'has this email (compared ignoring case) (crud.duplicate).',
    );
    const list = document.paths['/v1/order-lines']!.get as { responses: object };
    expect(list.responses).not.to.have.property('409');
  });
});
