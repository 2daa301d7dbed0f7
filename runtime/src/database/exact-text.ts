// Text columns that compare exactly: identities (a tenant, an owner) whose look-alikes (`ACME`,
// `acme `, `acmé`) must stay apart in `=` and in unique indexes on every database.
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';

/**
 * What makes a text column of a create-table migration on `knex` compare byte for byte: on MySQL
 * and MariaDB a binary collation without padding (their usual ones match `ACME` to `acme `,
 * `acmé` and `ACME `); PostgreSQL and SQLite compare text exactly already, so it changes nothing.
 *
 * @example
 * const exact = await exactText(knex);
 * await knex.schema.createTable('books', (table) => {
 *   exact(table.string('tenant_id', 255)).notNullable();
 * });
 */
export async function exactText(
  knex: Knex,
): Promise<(column: Knex.ColumnBuilder) => Knex.ColumnBuilder> {
  const collation = await dialectFor(knex).exactTextCollation(knex);
  return (column) => (collation ? column.collate(collation) : column);
}
