// PostgreSQL's search index: one GIN index with pg_trgm's gin_trgm_ops over the searched text
// columns. The list query matches `column ILIKE '%term%'`, which the index serves as it is
// (a bitmap scan per column, OR-ed), whatever the term's length or characters; the planner
// rechecks every row it names, so results are the plain match's.
import type { Dialect } from './dialect.js';
import { quoteDouble } from './shared.js';

/** Why the index cannot be made: pg_trgm is neither installed nor installable by this role. */
export class SearchIndexUnavailableError extends Error {
  override name = 'SearchIndexUnavailableError';
}

const indexName = (table: string) => `${table}__search`;

export const trigramIndex: Dialect['searchIndex'] = {
  supported: true,
  name: indexName,
  async create(knex, table, columns) {
    if (columns.length === 0) return;
    const { rows } = (await knex.raw("select 1 from pg_extension where extname = 'pg_trgm'")) as {
      rows: unknown[];
    };
    if (rows.length === 0) {
      // A trusted extension (PostgreSQL 13+): a role with CREATE on the database may add it.
      // Refused, the migration stops with what to do rather than leave every search a scan.
      try {
        await knex.raw('create extension if not exists pg_trgm');
      } catch (error) {
        throw new SearchIndexUnavailableError(
          `The search index of ${table} needs the pg_trgm extension, which this role may not create ` +
            `(${(error as Error).message}). Run "CREATE EXTENSION pg_trgm;" in this database as its ` +
            'owner or a superuser, then migrate again; or set searchIndex: false in the entity spec.',
          { cause: error },
        );
      }
    }
    const operands = columns.map((c) => `${quoteDouble(c)} gin_trgm_ops`).join(', ');
    await knex.raw(
      `create index ${quoteDouble(indexName(table))} on ${quoteDouble(table)} using gin (${operands})`,
    );
  },
  async drop(knex, table) {
    await knex.raw(`drop index if exists ${quoteDouble(indexName(table))}`);
  },
};
