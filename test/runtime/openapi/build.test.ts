// The OpenAPI document built from slice descriptions: valid 3.1, every route, every constraint.
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import {
  buildOpenApiDocument,
  OpenApiDescriptionError,
  routesOf,
  toOpenApiSchema,
  type OpenApiDocument,
} from '@slicekit/runtime/openapi';
import { productRoutes, productSlice } from './product-slice.js';

async function validate(document: OpenApiDocument) {
  const validator = new Validator();
  // The validator keeps the object it is given; a copy leaves ours untouched.
  return validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
}

type Operation = {
  parameters?: { name?: string; $ref?: string; schema?: Record<string, unknown> }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: unknown;
};
const operation = (doc: OpenApiDocument, method: string, path: string) =>
  doc.paths[path]?.[method] as Operation;

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument([productSlice], { title: 'Shop API', version: '2.0.0' });

  it('validates against the OpenAPI 3.1 schema', async () => {
    const result = await validate(document);
    expect(result.errors ?? []).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('lists every route of the slice, and nothing else', () => {
    expect(routesOf(document)).to.deep.equal(productRoutes);
  });

  it('carries the request constraints (required, length, range) and drops $schema / $id', () => {
    const create = document.components.schemas?.CreateProductRequest as Record<string, unknown>;
    expect(create).to.deep.equal({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 150 },
        price: { type: 'number', minimum: 0.01 },
      },
      required: ['name', 'price'],
      additionalProperties: false,
    });
    expect(document.components.schemas).to.have.keys(
      'ProblemDetails',
      'ProductDto',
      'ProductDtoPagedResponse',
      'ProductDtoSelection',
      'CreateProductRequest',
      'ChangePriceProductRequest',
      'ApproveProductRequest',
    );
  });

  it('types a list item as the DTO or, read with select, a selection requiring no member', () => {
    const schemas = document.components.schemas as Record<string, Record<string, unknown>>;
    const paged = schemas.ProductDtoPagedResponse as {
      properties: { items: { items: unknown } };
    };
    expect(paged.properties.items.items).to.deep.equal({
      anyOf: [
        { $ref: '#/components/schemas/ProductDto' },
        { $ref: '#/components/schemas/ProductDtoSelection' },
      ],
    });
    expect(schemas.ProductDto!.required).to.include('price');
    expect(schemas.ProductDtoSelection).to.not.have.property('required');
    expect(schemas.ProductDtoSelection!.properties).to.deep.equal(schemas.ProductDto!.properties);
  });

  it('turns nullable: true into a null type', () => {
    const approve = document.components.schemas?.ApproveProductRequest as {
      properties: { byUser: unknown };
    };
    expect(approve.properties.byUser).to.deep.equal({ type: ['string', 'null'] });
  });

  it('documents the list parameters with the engine limits', () => {
    const list = operation(document, 'get', '/v1/products');
    const byName = Object.fromEntries((list.parameters ?? []).map((p) => [p.name, p.schema]));
    expect(Object.keys(byName)).to.deep.equal([
      'pageNumber',
      'pageSize',
      'filter',
      'search',
      'orderBy',
      'desc',
      'cursor',
      'select',
      'Prefer',
    ]);
    expect(byName.pageSize).to.deep.equal({ type: 'integer', default: 20 });
    expect(byName.filter).to.include({ type: 'array', maxItems: 20 });
    expect(byName.search).to.deep.equal({ type: 'string', minLength: 2 });
    expect(byName.select).to.deep.include({ type: 'array' });
    expect((byName.select as { items: { enum: string[] } }).items.enum).to.include('name');
    expect(byName.orderBy).to.deep.equal({
      type: 'string',
      enum: ['name', 'price', 'createdOn', 'id'],
    });
  });

  it('answers errors as problem+json: 400 with input, 404 on item routes, 412 on changes', () => {
    const update = operation(document, 'put', '/v1/products/{id}');
    expect(update.responses).to.have.keys('200', '400', '404', '412');
    expect(update.responses['404']?.content).to.have.key('application/problem+json');
    expect(update.responses['412']?.content).to.have.key('application/problem+json');
    const list = operation(document, 'get', '/v1/products');
    expect(list.responses).to.have.keys('200', '400');
    expect(operation(document, 'delete', '/v1/products/{id}').responses).to.have.keys(
      '204',
      '400',
      '404',
      '412',
    );
    expect(operation(document, 'get', '/v1/products/{id}').responses).to.have.keys(
      '200',
      '400',
      '404',
    );
  });

  it('summarises each operation in English: articles, and method names read as a verb and its object', () => {
    const summaries = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { summary: string }>).map(
        ([method, op]) => `${method} ${path}: ${op.summary}`,
      ),
    );
    expect(summaries).to.include.members([
      'get /v1/products/{id}: Get a product by id',
      'post /v1/products: Create a product',
      'put /v1/products/{id}: Change the price of a product',
      'post /v1/products/{id}/approval: Approve a product',
      'delete /v1/products/{id}: Delete a product',
    ]);
  });

  it('documents the ETag of single-row answers and If-Match on changes and deletes', () => {
    const read = operation(document, 'get', '/v1/products/{id}');
    expect(read.responses['200']).to.have.nested.property('headers.ETag');
    expect(read.parameters).to.equal(undefined);
    for (const [method, path] of [
      ['put', '/v1/products/{id}'],
      ['post', '/v1/products/{id}/approval'],
      ['delete', '/v1/products/{id}'],
    ] as const) {
      const names = (operation(document, method, path).parameters ?? []).map(
        (p) => (p as { name?: string }).name,
      );
      expect(names, `${method} ${path}`).to.include('If-Match');
    }
    // A list answers no ETag; it names the count preference it applied.
    expect(operation(document, 'get', '/v1/products').responses['200'])
      .to.have.property('headers')
      .that.has.all.keys('Preference-Applied');
  });

  it('requires the idempotency header, and documents 409, only where the slice asks for it', () => {
    const create = operation(document, 'post', '/v1/products');
    expect(create.parameters).to.deep.equal([{ $ref: '#/components/parameters/IdempotencyKey' }]);
    expect(create.responses).to.have.keys('201', '400', '409', '422');
    expect(document.components.parameters?.IdempotencyKey).to.include({
      name: 'X-Idempotency-Key',
      in: 'header',
      required: true,
    });
    const approve = operation(document, 'post', '/v1/products/{id}/approval');
    expect(approve.parameters).to.deep.equal([
      {
        name: 'If-Match',
        in: 'header',
        required: false,
        description: 'Change only if the row still has this entity tag (its ETag); 412 otherwise.',
        schema: { type: 'string' },
      },
    ]);
    expect(approve.responses).to.not.have.property('409');
  });

  it('documents 422 for a key reused with a different request on idempotent routes only', () => {
    const created = operation(document, 'post', '/v1/products').responses['422'] as {
      description: string;
      content: Record<string, { schema: unknown }>;
    };
    expect(created.description).to.contain('already used for a different request');
    expect(created.description).to.contain('idempotency.key_reused');
    expect(created.content['application/problem+json']!.schema).to.deep.equal({
      $ref: '#/components/schemas/ProblemDetails',
    });
    expect(
      (document.components.parameters?.IdempotencyKey as { description: string }).description,
    ).to.contain('answered 422');
    for (const [method, path] of [
      ['put', '/v1/products/{id}'],
      ['post', '/v1/products/{id}/approval'],
      ['delete', '/v1/products/{id}'],
    ] as const) {
      expect(operation(document, method, path).responses, `${method} ${path}`).to.not.have.property(
        '422',
      );
    }
    const unfingerprinted = buildOpenApiDocument([productSlice], {
      idempotencyFingerprint: false,
    });
    expect(operation(unfingerprinted, 'post', '/v1/products').responses).to.not.have.property(
      '422',
    );
    expect(
      (unfingerprinted.components.parameters?.IdempotencyKey as { description: string })
        .description,
    ).to.not.contain('422');
  });

  it('documents 409 crud.rule_violation on an operation with business rules, naming each', () => {
    const guarded = buildOpenApiDocument([
      {
        ...productSlice,
        operations: productSlice.operations.map((op) =>
          op.name === 'Approve' ? { ...op, rules: ['product.approve.status'] } : op,
        ),
      },
    ]);
    const conflict = operation(guarded, 'post', '/v1/products/{id}/approval').responses['409'] as {
      description: string;
    };
    expect(conflict.description).to.contain('crud.rule_violation: product.approve.status');
    expect(operation(guarded, 'put', '/v1/products/{id}').responses).to.not.have.property('409');
  });

  it('leaves the idempotency parameter out of a document with no idempotent route', () => {
    const plain = buildOpenApiDocument([
      {
        ...productSlice,
        operations: productSlice.operations.map((o) => ({ ...o, idempotent: false })),
      },
    ]);
    expect(plain.components).to.not.have.property('parameters');
  });

  it('declares bearer auth and 401 responses when auth is configured', async () => {
    const optional = buildOpenApiDocument([productSlice], { auth: 'optional' });
    expect(optional.security).to.deep.equal([{}, { bearerAuth: [] }]);
    expect(operation(optional, 'get', '/v1/products').responses).to.have.property('401');
    const required = buildOpenApiDocument([productSlice], { auth: 'required' });
    expect(required.security).to.deep.equal([{ bearerAuth: [] }]);
    expect((await validate(required)).valid).to.equal(true);
    expect(operation(document, 'get', '/v1/products').responses).to.not.have.property('401');
  });

  it('keeps several slices apart and still validates', async () => {
    const orders = {
      ...productSlice,
      entity: 'Order',
      path: '/v1/orders',
      operations: [{ kind: 'getById' as const }, { kind: 'list' as const }],
    };
    const doc = buildOpenApiDocument([productSlice, orders]);
    expect(routesOf(doc)).to.include.members(['GET /v1/orders', 'GET /v1/orders/{id}']);
    expect(doc.tags).to.deep.equal([{ name: 'Product' }, { name: 'Order' }]);
    expect((await validate(doc)).valid).to.equal(true);
  });

  it('refuses two operations on one route and lists every problem', () => {
    try {
      buildOpenApiDocument([
        {
          ...productSlice,
          operations: [
            { kind: 'update', name: 'ChangePrice' },
            { kind: 'update', name: 'Rename' },
            { kind: 'action', name: 'bad name', segment: 'a/b' },
          ],
        },
      ]);
      expect.fail('built a document with conflicting routes');
    } catch (error) {
      expect(error).to.be.instanceOf(OpenApiDescriptionError);
      expect(error).to.include({ code: 'openapi_description_invalid' });
      const problems = (error as OpenApiDescriptionError).problems;
      expect(problems.some((p) => /PascalCase method name/.test(p))).to.equal(true);
      expect(problems.some((p) => /one bare path segment/.test(p))).to.equal(true);
    }
    try {
      buildOpenApiDocument([
        {
          ...productSlice,
          operations: [
            { kind: 'update', name: 'ChangePrice' },
            { kind: 'update', name: 'Rename' },
          ],
        },
      ]);
      expect.fail('built a document with two operations on PUT /v1/products/{id}');
    } catch (error) {
      expect((error as OpenApiDescriptionError).problems).to.deep.equal([
        'PUT /v1/products/{id} is described twice',
      ]);
    }
  });

  it('keeps a DTO property that is called nullable or $id', () => {
    expect(
      toOpenApiSchema({
        type: 'object',
        properties: { nullable: { type: 'boolean' }, $id: { type: 'string' } },
      }),
    ).to.deep.equal({
      type: 'object',
      properties: { nullable: { type: 'boolean' }, $id: { type: 'string' } },
    });
  });
});
