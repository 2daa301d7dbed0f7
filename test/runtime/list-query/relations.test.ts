// Relations in the list-query engine, checked with toSQL() and no database: dotted paths to a
// joined table's columns, an any-match over a collection's elements (a child table or a join
// table), and the owner condition that keeps another caller's related rows out.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import {
  buildListQueries,
  defineListResource,
  parseListQuery,
  type ListResource,
} from '@slicekit/runtime/list-query';

const clients = {
  postgres: knexFactory({ client: 'pg' }),
  mysql: knexFactory({ client: 'mysql2' }),
};

const row = (properties: Record<string, object>) => ({
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' }, ...properties },
});

const orders = defineListResource({
  table: 'orders',
  dto: {
    type: 'object',
    required: ['id', 'customerId'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      customerId: { type: 'string', format: 'uuid' },
      customer: { ...row({ name: { type: 'string' } }), type: ['object', 'null'] },
      lines: {
        type: 'array',
        items: row({ sku: { type: 'string' }, quantity: { type: 'integer' } }),
      },
      tags: { type: 'array', items: row({ name: { type: 'string' } }) },
    },
  },
  columns: {
    customer: {
      relation: { table: 'customers', localColumn: 'customer_id', ownerColumn: 'owned_by' },
    },
    lines: { collection: { table: 'order_lines', foreignKey: 'order_id' } },
    tags: {
      collection: {
        table: 'tags',
        through: { table: 'order_tags', localKey: 'order_id', foreignKey: 'tag_id' },
      },
    },
  },
});

function sql(knex: Knex, query: Record<string, unknown>, resource: ListResource = orders) {
  const { page, count } = buildListQueries(knex, resource, parseListQuery(resource, query), {
    principal: 'alice',
  });
  return { page: page.toSQL(), count: count.toSQL() };
}

describe('list-query relations', () => {
  after(() => Promise.all(Object.values(clients).map((k) => k.destroy())));

  it('offers the sub-members of nested objects and collections by dotted paths', () => {
    expect(orders.queryableFields).to.deep.equal([
      'id',
      'customerId',
      'customer.id',
      'customer.name',
      'lines.id',
      'lines.sku',
      'lines.quantity',
      'tags.id',
      'tags.name',
    ]);
    const query = parseListQuery(orders, {
      filter: 'Customer.NAME:StartsWith:Al',
      orderBy: 'Customer.Name',
    });
    expect(query.filters[0]).to.include({ field: 'customer.name', operation: 'StartsWith' });
    expect(query.orderBy).to.equal('customer.name');
  });

  it("joins an owned relation on the caller's rows only, in the page and the count it filters", () => {
    const { page, count } = sql(clients.postgres, {
      filter: 'customer.name:StartsWith:Al',
      orderBy: 'customer.name',
    });
    const join =
      'LEFT JOIN "customers" "r_customer" ON "r_customer"."id" = "orders"."customer_id" AND "r_customer"."owned_by" COLLATE "C" = ?';
    expect(page.sql).to.include(join);
    expect(count.sql).to.include(join);
    expect(page.bindings[0]).to.equal('alice');
    expect(page.sql).to.include(`order by "r_customer"."name" COLLATE "C" ASC NULLS FIRST`);
    expect(sql(clients.postgres, {}).count.sql).not.to.include('JOIN');
  });

  it('joins a related row every row has (required, not null, not owned) with an inner join', () => {
    const lines = defineListResource({
      table: 'order_lines',
      dto: {
        type: 'object',
        required: ['id', 'order'],
        properties: { id: { type: 'integer' }, order: row({ status: { type: 'string' } }) },
      },
      columns: { order: { relation: { table: 'orders', localColumn: 'order_id' } } },
    });
    const { page } = sql(clients.postgres, { filter: 'order.status:Equal:draft' }, lines);
    expect(page.sql).to.include('INNER JOIN "orders" "r_order" ON');
    // A left join's filter says it never matches a missing row, so the database may read it first.
    expect(sql(clients.postgres, { filter: 'customer.name:Equal:Al' }).page.sql).to.include(
      '("r_customer"."name" IS NOT NULL AND',
    );
  });

  it('matches any element of a collection with EXISTS, and none for the negative operations', () => {
    const through = sql(clients.mysql, { filter: 'tags.name:Equal:gift' }).page.sql;
    expect(through).to.include(
      'EXISTS (SELECT 1 FROM `order_tags` `f_0_j` INNER JOIN `tags` `f_0` ON `f_0`.`id` = `f_0_j`.`tag_id` WHERE `f_0_j`.`order_id` = `orders`.`id` AND',
    );
    const none = sql(clients.postgres, { filter: 'lines.sku:NotContains:AB' }).page.sql;
    expect(none).to.include(
      `NOT EXISTS (SELECT 1 FROM "order_lines" "f_0" WHERE "f_0"."order_id" = "orders"."id" AND ("f_0"."sku" ILIKE ? ESCAPE '!'))`,
    );
  });

  it('refuses to order by a member of a collection, naming what can', () => {
    expect(() => parseListQuery(orders, { orderBy: 'tags.name' })).to.throw(
      /tags\.name is a member of a collection's elements and cannot order the list/,
    );
    expect(() => parseListQuery(orders, { filter: 'customer:IsNull' })).to.throw(
      /customer is a nested object and cannot be used here; use one of .*customer\.name/,
    );
  });
});
