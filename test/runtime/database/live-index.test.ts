// The list indexes of a soft-deleting tenant table (liveIndexMigration) against real databases:
// the scoped list's page and its exact count, as the list engine builds them for a caller of one
// tenant, read the live index (EXPLAIN), whatever another tenant's and the deleted rows hold.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { defineEntityTable, liveRowsOnly, scopeRows } from '@slicekit/runtime/crud';
import { exactText, liveIndexMigration } from '@slicekit/runtime/database';
import { buildListQueries, defineListResource, parseListQuery } from '@slicekit/runtime/list-query';
import { describeEachDatabase } from '../../support/services.js';

class Member {
  id = '';
  name = '';
  tenantId = '';
  deletedOn: Date | null = null;
  deletedBy: string | null = null;
  deletionId: string | null = null;
}

const members = defineEntityTable({
  table: 'li_members',
  entity: Member,
  fields: { id: 'uuid', name: 'string' },
  audited: true,
  tenant: true,
  softDelete: true,
});

const memberList = defineListResource({
  table: 'li_members',
  audited: true,
  // Required, as a generated DTO's: the order then needs no NULLS LAST, which an index lacks.
  dto: {
    type: 'object',
    required: ['id', 'name', 'createdOn'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      createdOn: { type: 'string', format: 'date-time' },
    },
  },
});

// As the generated migration of a tenant, soft-deleting entity declares its default order and
// the tenant alone, for counting.
const lists = liveIndexMigration({
  table: 'li_members',
  indexes: [
    { scope: ['tenant_id'], columns: [], counts: true },
    { scope: ['tenant_id'], columns: ['created_on', 'id'] },
  ],
});
const INDEX = 'li_members_tenant_id_created_on_id_live';
const COUNT_INDEX = 'li_members_tenant_id_live';

/** The plan of `statement` as text, naming the indexes it reads. */
async function plan(knex: Knex, dialect: string, statement: Knex.Sql): Promise<string> {
  const bindings = statement.bindings as Knex.RawBinding[];
  if (dialect === 'sqlite') {
    const rows = (await knex.raw(`explain query plan ${statement.sql}`, bindings)) as {
      detail: string;
    }[];
    return rows.map((r) => r.detail).join('\n');
  }
  if (dialect === 'postgres') {
    // Whatever the planner's costs on a small table: the question is whether the index serves.
    return knex.transaction(async (trx) => {
      await trx.raw('set local enable_seqscan = off');
      const { rows } = (await trx.raw(`explain ${statement.sql}`, bindings)) as {
        rows: { 'QUERY PLAN': string }[];
      };
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }
  const [rows] = (await knex.raw(`explain ${statement.sql}`, bindings)) as [
    { key: string | null; Extra: string | null }[],
  ];
  return rows.map((r) => `key ${r.key}; ${r.Extra}`).join('\n');
}

describeEachDatabase('the live list index of a tenant table', (db) => {
  before(async () => {
    const exact = await exactText(db.knex);
    await db.knex.schema.createTable('li_members', (t) => {
      t.uuid('id').primary();
      t.string('name', 100).notNullable();
      exact(t.string('tenant_id', 255)).notNullable();
      t.string('created_by', 255).notNullable();
      t.datetime('created_on', { precision: 3 }).notNullable();
      t.string('updated_by', 255).notNullable();
      t.datetime('updated_on', { precision: 3 }).notNullable();
      t.datetime('deleted_on', { precision: 3 }).nullable();
      t.string('deleted_by', 255).nullable();
      t.uuid('deletion_id').nullable();
    });
    await lists.up(db.knex);
    // A few of the caller's rows among many of another tenant's, and deleted ones of its own.
    const start = Date.UTC(2024, 0, 1);
    const rows = Array.from({ length: 2000 }, (_, n) => ({
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      name: `Member ${n}`,
      tenant_id: n % 10 === 0 ? 'ACME' : 'GLOBEX',
      created_by: 'test',
      created_on: new Date(start + n * 1000),
      updated_by: 'test',
      updated_on: new Date(start + n * 1000),
      deleted_on: n % 20 === 0 ? new Date(start) : null,
    }));
    await db.knex.batchInsert('li_members', rows, 250);
    if (db.dialect !== 'sqlite') {
      await db.knex.raw(
        db.dialect === 'postgres' ? 'analyze li_members' : 'analyze table li_members',
      );
    }
  });

  it("serves the caller's page and its count from the indexes over live rows", async () => {
    const query = parseListQuery(memberList, { pageSize: '20' });
    const { page, count } = buildListQueries(db.knex, memberList, query, {
      extraRows: 1,
      scope: (qb) =>
        liveRowsOnly(scopeRows(qb, members, { principal: 'ana', tenant: 'ACME' }), members),
    });
    expect(await page.clone()).to.have.length(21);
    const [counted] = (await count.clone()) as Record<string, unknown>[];
    expect(Number(Object.values(counted!)[0])).to.equal(100);
    expect(await plan(db.knex, db.dialect, page.toSQL())).to.contain(INDEX);
    // The count reads the tenant alone where the dialect makes that index (PostgreSQL); the
    // others have none (countIndexes) and count through the list's.
    const counting = await plan(db.knex, db.dialect, count.toSQL());
    expect(counting).to.contain(db.dialect === 'postgres' ? COUNT_INDEX : INDEX);
    // The page reads the index in its order: no sort step.
    expect(await plan(db.knex, db.dialect, page.toSQL())).not.to.match(/filesort|TEMP B-TREE|Sort/);
    // Down drops it again.
    await lists.down(db.knex);
    expect(await plan(db.knex, db.dialect, count.toSQL())).not.to.match(/_live/);
  });
});
