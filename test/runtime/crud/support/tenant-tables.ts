// The tables the tenant tests share: shelves of a tenant and books of a tenant and an owner (with
// bypass roles), their list resources as a generated DTO reads them, and look-alike tenant ids.
import type { Knex } from 'knex';
import { defineEntityTable, type Caller } from '@slicekit/runtime/crud';
import { exactText } from '@slicekit/runtime/database';
import { defineListResource } from '@slicekit/runtime/list-query';

export class Shelf {
  id = '';
  name = '';
  tenantId = '';
}

export class Book {
  id = '';
  title = '';
  isbn = '';
  shelfId: string | null = null;
  ownedBy = '';
  tenantId = '';
  createdBy = '';
  createdOn = new Date();
  updatedBy = '';
  updatedOn = new Date();
}

export const shelves = defineEntityTable({
  table: 'tenant_shelves',
  entity: Shelf,
  fields: { id: 'uuid', name: 'string' },
  tenant: true,
});

export const books = defineEntityTable({
  table: 'tenant_books',
  entity: Book,
  fields: { id: 'uuid', title: 'string', isbn: 'string', shelfId: 'reference' },
  audited: true,
  owned: { bypass: ['admin'] },
  tenant: true,
  unique: [['isbn']],
  references: { shelfId: { to: () => shelves, onDelete: 'restrict' } },
});

const row = (properties: Record<string, object>) => ({
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' }, ...properties },
});

export const bookResource = defineListResource({
  table: 'tenant_books',
  audited: true,
  dto: {
    ...row({
      title: { type: 'string' },
      createdOn: { type: 'string', format: 'date-time' },
      shelf: { ...row({ name: { type: 'string' } }), type: ['object', 'null'] },
    }),
  },
  columns: {
    shelf: {
      relation: { table: 'tenant_shelves', localColumn: 'shelf_id', tenantColumn: 'tenant_id' },
    },
  },
});

export const shelfResource = defineListResource({
  table: 'tenant_shelves',
  dto: row({
    name: { type: 'string' },
    books: { type: 'array', items: row({ title: { type: 'string' } }) },
  }),
  columns: {
    books: {
      collection: {
        table: 'tenant_books',
        foreignKey: 'shelf_id',
        ownerColumn: 'owned_by',
        ownerBypass: ['admin'],
        tenantColumn: 'tenant_id',
      },
    },
  },
});

export const idOf = (n: number) => `7a1c2f7e-3c1a-4e0b-9a51-${String(n).padStart(12, '0')}`;
export const LOOKALIKES = ['acme', 'Acme', 'acme ', 'ACME ', 'acmé', 'ACMÉ'];
/** A caller of tenant ACME. */
export const acme = (principal: string, roles: string[] = []): Caller => ({
  principal,
  roles,
  tenant: 'ACME',
});

export async function createTenantTables(knex: Knex): Promise<void> {
  const exact = await exactText(knex);
  await knex.schema.createTable('tenant_shelves', (t) => {
    t.uuid('id').primary();
    t.string('name', 100).notNullable();
    exact(t.string('tenant_id', 255)).notNullable();
    t.index(['tenant_id']);
  });
  await knex.schema.createTable('tenant_books', (t) => {
    t.uuid('id').primary();
    t.string('title', 100).notNullable();
    t.string('isbn', 20).notNullable();
    t.uuid('shelf_id').references('id').inTable('tenant_shelves');
    t.string('owned_by', 255).notNullable();
    exact(t.string('tenant_id', 255)).notNullable();
    for (const c of ['created_by', 'updated_by']) t.string(c, 255).notNullable();
    for (const c of ['created_on', 'updated_on']) t.datetime(c, { precision: 3 }).notNullable();
    // Unique per tenant: the tenant column leads the index.
    t.unique(['tenant_id', 'isbn']);
  });
}

export function book(n: number, title: string, isbn: string, shelfId: string | null = null): Book {
  return Object.assign(new Book(), { id: idOf(n), title, isbn, shelfId });
}
