// The SQL the engine writes per dialect, checked with toSQL() and no database: case-insensitive
// Unicode LIKE with escaped wildcards, code-point order, the id tie-breaker and the default order.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { buildListQueries, defineListResource, parseListQuery } from '@slicekit/runtime/list-query';
import { items } from './fixture.js';

const clients = {
  postgres: knexFactory({ client: 'pg' }),
  mysql: knexFactory({ client: 'mysql2' }),
  sqlite: knexFactory({ client: 'better-sqlite3', useNullAsDefault: true }),
};

function sql(knex: Knex, query: Record<string, unknown>, resource = items) {
  const { page, count } = buildListQueries(knex, resource, parseListQuery(resource, query));
  return { page: page.toSQL(), count: count.toSQL() };
}

const plain = defineListResource({
  table: 'notes',
  dto: { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' } } },
});

describe('list-query SQL per dialect', () => {
  after(() => Promise.all(Object.values(clients).map((k) => k.destroy())));

  it('matches Contains case-insensitively with Unicode folding on each database', () => {
    const filter = 'name:Contains:É';
    expect(sql(clients.postgres, { filter }).page.sql).to.include(
      `"lq_items"."name" ILIKE ? ESCAPE '!'`,
    );
    expect(sql(clients.mysql, { filter }).page.sql).to.include(
      "LOWER(`lq_items`.`name`) LIKE LOWER(?) COLLATE utf8mb4_bin ESCAPE '!'",
    );
    expect(sql(clients.sqlite, { filter }).page.sql).to.include(
      `slicekit_lower("lq_items"."name") LIKE slicekit_lower(?) ESCAPE '!'`,
    );
  });

  it('escapes %, _ and the escape character in the bound pattern', () => {
    for (const knex of Object.values(clients)) {
      expect(sql(knex, { filter: 'name:StartsWith:50%_!x' }).page.bindings[0]).to.equal(
        '50!%!_!!x%',
      );
      expect(sql(knex, { filter: 'name:EndsWith:_' }).page.bindings[0]).to.equal('%!_');
    }
  });

  it('guards each search clause against null and ORs them in one group', () => {
    const { sql: text, bindings } = sql(clients.postgres, { search: 'ab' }).page;
    expect(text).to.include(
      `("lq_items"."name" IS NOT NULL AND "lq_items"."name" ILIKE ? ESCAPE '!') OR`,
    );
    expect(text).to.include(`("lq_items"."meta" ->> 'label')`);
    expect(text).to.include(`"r_category"."title" IS NOT NULL`);
    expect(text).to.include(
      `EXISTS (SELECT 1 FROM "lq_tags" "c_tags" WHERE "c_tags"."item_id" = "lq_items"."id"`,
    );
    // name, code, meta.label, category.title, tags, labels[*], parts[*].sku
    expect(bindings.filter((b) => b === '%ab%')).to.have.length(7);
  });

  it('reads JSON sub-members as text on MySQL and SQLite', () => {
    expect(sql(clients.mysql, { search: 'ab' }).page.sql).to.include(
      "JSON_VALUE(`lq_items`.`meta`, '$.label')",
    );
    expect(sql(clients.sqlite, { search: 'ab' }).page.sql).to.include(
      `json_extract("lq_items"."meta", '$.label')`,
    );
  });

  it('orders text in code-point order and puts NULL first ascending on every database', () => {
    expect(sql(clients.postgres, { orderBy: 'code' }).page.sql).to.include(
      `order by "lq_items"."code" COLLATE "C" ASC NULLS FIRST, "lq_items"."id" DESC limit`,
    );
    expect(sql(clients.mysql, { orderBy: 'code' }).page.sql).to.include(
      'order by CAST(`lq_items`.`code` AS BINARY) ASC, `lq_items`.`id` DESC',
    );
    expect(sql(clients.sqlite, { orderBy: 'code', desc: 'true' }).page.sql).to.include(
      `order by "lq_items"."code" DESC, "lq_items"."id" DESC`,
    );
  });

  it('leaves NULLS FIRST/LAST out for members the schema requires and types without null', () => {
    expect(sql(clients.postgres, { orderBy: 'price', desc: 'true' }).page.sql).to.include(
      `order by "lq_items"."price" DESC, "lq_items"."id" DESC limit`,
    );
  });

  it('uses the native LIKE on SQLite for an ASCII pattern, and JavaScript only for İ and K', () => {
    const plainLike = sql(clients.sqlite, { filter: 'name:Contains:ab' }).page;
    expect(plainLike.sql).to.include(`where "lq_items"."name" LIKE ? ESCAPE '!'`);
    expect(plainLike.bindings[0]).to.equal('%ab%');
    // Only İ lowers to i and only the Kelvin sign to k: a pattern with an i or a k checks them.
    const { sql: text, bindings } = sql(clients.sqlite, { filter: 'name:Contains:Ki' }).page;
    expect(text).to.include(
      `("lq_items"."name" LIKE ? ESCAPE '!' OR ((instr("lq_items"."name", '\u0130') > 0 OR instr("lq_items"."name", '\u212a') > 0) AND slicekit_lower("lq_items"."name") LIKE slicekit_lower(?) ESCAPE '!'))`,
    );
    expect(bindings.slice(0, 2)).to.deep.equal(['%Ki%', '%Ki%']);
  });

  it('does not repeat the id when ordering by it', () => {
    expect(sql(clients.sqlite, { orderBy: 'id' }).page.sql).to.match(
      /order by "lq_items"."id" ASC limit/,
    );
  });

  it('orders audited DTOs by createdOn then id, others by id, both descending', () => {
    expect(sql(clients.sqlite, {}).page.sql).to.include(
      `order by "lq_items"."created_on" DESC, "lq_items"."id" DESC`,
    );
    expect(sql(clients.sqlite, {}, plain).page.sql).to.include(`order by "notes"."id" DESC limit`);
  });

  it('compares a date-only value with a timestamp as the whole UTC day', () => {
    const { sql: text, bindings } = sql(clients.postgres, {
      filter: 'createdOn:Equal:2024-05-01',
    }).page;
    expect(text).to.include(`("lq_items"."created_on" >= ? AND "lq_items"."created_on" < ?)`);
    expect(bindings.slice(0, 2).map((b) => (b as Date).toISOString())).to.deep.equal([
      '2024-05-01T00:00:00.000Z',
      '2024-05-02T00:00:00.000Z',
    ]);
  });

  it('makes text equality exact on MySQL while keeping the index usable', () => {
    expect(sql(clients.mysql, { filter: 'name:Equal:a' }).page.sql).to.include(
      '(`lq_items`.`name` = ? AND CAST(`lq_items`.`name` AS BINARY) = CAST(? AS BINARY))',
    );
  });

  it('lets NotEqual, NotContains and NotIn match rows where the field is null', () => {
    expect(sql(clients.sqlite, { filter: 'code:NotIn:a,b' }).page.sql).to.include(
      `("lq_items"."code" IS NULL OR NOT ("lq_items"."code" IN (?, ?)))`,
    );
  });

  it('pages with limit and offset and counts without ordering or paging', () => {
    const { page, count } = sql(clients.postgres, { pageNumber: '3', pageSize: '10' }, plain);
    expect(page.sql).to.match(/limit \? offset \?$/);
    expect(page.bindings.slice(-2)).to.deep.equal([10, 20]);
    expect(count.sql).to.equal('select COUNT(*) AS total from "notes"');
  });

  it('joins a relation for the count only when the search reads it', () => {
    expect(sql(clients.postgres, {}).count.sql).not.to.include('JOIN');
    expect(sql(clients.postgres, { search: 'ab' }).count.sql).to.include(
      'LEFT JOIN "lq_categories" "r_category"',
    );
  });

  it('quotes a schema-qualified child table in the collection EXISTS', () => {
    const notes = defineListResource({
      table: 'app.notes',
      dto: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          labels: { type: 'array', items: { type: 'string' } },
        },
      },
      columns: { labels: { collection: { table: 'app.note_labels', foreignKey: 'note_id' } } },
    });
    expect(sql(clients.postgres, { search: 'ab' }, notes).page.sql).to.include(
      `EXISTS (SELECT 1 FROM "app"."note_labels" "c_labels" WHERE "c_labels"."note_id" = "app"."notes"."id"`,
    );
    expect(sql(clients.mysql, { search: 'ab' }, notes).page.sql).to.include(
      'EXISTS (SELECT 1 FROM `app`.`note_labels` `c_labels`',
    );
  });

  it('refuses a Knex client it cannot run on', () => {
    const sqlite3 = knexFactory({ client: 'sqlite3', useNullAsDefault: true });
    try {
      expect(() => sql(sqlite3, {})).to.throw(/better-sqlite3/);
    } finally {
      void sqlite3.destroy();
    }
  });

  it('searches JSON arrays with an any-match over their elements', () => {
    const search = { search: 'ab' };
    expect(sql(clients.postgres, search).page.sql).to.include(
      `EXISTS (SELECT 1 FROM json_array_elements(CASE WHEN json_typeof(CAST("lq_items"."labels" AS json)) = 'array'`,
    );
    expect(sql(clients.mysql, search).page.sql).to.include(
      "EXISTS (SELECT 1 FROM JSON_TABLE(`lq_items`.`parts`, '$[*]' COLUMNS (`t0` JSON PATH '$.sku')) AS `j_parts`",
    );
    expect(sql(clients.sqlite, search).page.sql).to.include(
      `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_type("lq_items"."labels") = 'array' THEN "lq_items"."labels" END) AS "j_labels"`,
    );
    // Dictionaries are never searched.
    expect(sql(clients.postgres, search).page.sql).not.to.include('"attributes"  ->>');
    expect(sql(clients.postgres, search).page.sql.match(/"attributes"/g)).to.have.length(1);
  });
});

describe('list-query page with a scope', () => {
  const knex = knexFactory({ client: 'better-sqlite3', useNullAsDefault: true });
  after(() => knex.destroy());
  const query = parseListQuery(items, { filter: 'price:GreaterThan:5', pageNumber: '2' });

  it("puts the scope's WHERE terms first, before the filters, as the builder would", () => {
    const { page } = buildListQueries(knex, items, query, {
      scope: (qb) => qb.where('lq_items.owned_by', 'u1').orWhere('lq_items.owned_by', 'u2'),
    });
    const { sql: text, bindings } = page.toSQL();
    expect(text).to.include(
      'where `lq_items`.`owned_by` = ? or `lq_items`.`owned_by` = ? and "lq_items"."price" > ?',
    );
    expect(text).to.match(/ order by .* limit \? offset \?$/);
    expect(bindings).to.deep.equal(['u1', 'u2', 5, 20, 20]);
  });

  it('keeps a scope that joins, with the same terms', () => {
    const { page } = buildListQueries(knex, items, query, {
      scope: (qb) => qb.join('owners', 'owners.id', 'lq_items.owner_id').where('owners.name', 'u1'),
    });
    const { sql: text, bindings } = page.toSQL();
    expect(text).to.include('inner join `owners` on `owners`.`id` = `lq_items`.`owner_id`');
    expect(text).to.include('where `owners`.`name` = ? and "lq_items"."price" > ?');
    expect(bindings).to.deep.equal(['u1', 5, 20, 20]);
  });
});
