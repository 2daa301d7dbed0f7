// The statement a failed query ran, with its placeholders: Knex learns it before it inlines the
// bound values into the error's message, and tells it through its 'query-error' event.
import type { Knex } from 'knex';

const statements = new WeakMap<object, string>();
const watched = new WeakSet<object>();

/**
 * Remembers, for every query of `knex` that fails (in a transaction too), the SQL it ran with
 * placeholders (`?`, or `$1` on PostgreSQL) and never its values, so `safeError` can log it.
 * Idempotent: calling it again on the same instance adds nothing. Answers `knex`.
 *
 * @example
 * const knex = recordFailedStatements(knexFactory(config));
 */
export function recordFailedStatements<K extends Knex>(knex: K): K {
  if (watched.has(knex)) return knex;
  watched.add(knex);
  knex.on('query-error', (error: unknown, query: { sql?: unknown } | undefined) => {
    if (typeof error === 'object' && error !== null && typeof query?.sql === 'string') {
      statements.set(error, query.sql);
    }
  });
  return knex;
}

/** The placeholder statement `recordFailedStatements` saw `error` fail on, if any. */
export function failedStatementOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? statements.get(error) : undefined;
}
