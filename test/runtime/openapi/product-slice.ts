// The spec's sample Product slice as an OpenAPI slice description, shared by the openapi tests.
import type { SliceDescription } from '@slicekit/runtime/openapi';

export const productSlice: SliceDescription = {
  entity: 'Product',
  path: '/v1/products',
  dto: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      price: { type: 'number' },
      isDiscontinued: { type: 'boolean' },
      createdBy: { type: ['string', 'null'] },
      createdOn: { type: 'string', format: 'date-time' },
      updatedBy: { type: ['string', 'null'] },
      updatedOn: { type: ['string', 'null'], format: 'date-time' },
      id: { type: 'string', format: 'uuid' },
    },
    required: ['name', 'price', 'isDiscontinued', 'id'],
  },
  operations: [
    { kind: 'getById' },
    { kind: 'list', list: { sortable: ['name', 'price', 'createdOn', 'id'] } },
    {
      kind: 'create',
      idempotent: true,
      request: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: 'CreateProductRequest',
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 150 },
          price: { type: 'number', minimum: 0.01 },
        },
        required: ['name', 'price'],
        additionalProperties: false,
      },
    },
    {
      kind: 'update',
      name: 'ChangePrice',
      request: {
        type: 'object',
        properties: { price: { type: 'number', minimum: 0.01 } },
        required: ['price'],
      },
    },
    { kind: 'delete' },
    {
      kind: 'action',
      name: 'Approve',
      segment: 'approval',
      request: {
        type: 'object',
        properties: { byUser: { type: 'string', nullable: true } },
        required: ['byUser'],
      },
    },
    { kind: 'action', name: 'Discontinue', method: 'put' },
  ],
};

export const productRoutes = [
  'DELETE /v1/products/{id}',
  'GET /v1/products',
  'GET /v1/products/{id}',
  'POST /v1/products',
  'POST /v1/products/{id}/approval',
  'PUT /v1/products/{id}',
  'PUT /v1/products/{id}/discontinue',
];
