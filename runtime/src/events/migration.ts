// The Knex migration creating the transactional outbox table.
import type { Knex } from 'knex';
import { DEFAULT_OUTBOX_TABLE, type OutboxTableOptions } from './types.js';

/** A Knex migration module: what a file in the migrations folder exports. */
export interface KnexMigration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * The migration creating the outbox table. Times are epoch milliseconds in BIGINT columns so the
 * three databases compare them the same way, with no time-zone conversion.
 *
 * @example
 * // migrations/20240101000000_outbox.ts
 * export const { up, down } = outboxMigration();
 */
export function outboxMigration(options: OutboxTableOptions = {}): KnexMigration {
  const table = options.table ?? DEFAULT_OUTBOX_TABLE;
  return {
    async up(knex) {
      await knex.schema.createTable(table, (t) => {
        t.bigIncrements('id').primary();
        t.string('name', 200).notNullable();
        t.string('entity', 200).nullable();
        t.string('entity_id', 200).nullable();
        // MySQL's TEXT stops at 64 KiB; mediumtext elsewhere maps to plain text.
        t.text('payload', 'mediumtext').notNullable();
        t.string('status', 16).notNullable().defaultTo('pending');
        t.integer('attempts').notNullable().defaultTo(0);
        t.bigInteger('occurred_at').notNullable();
        // Earliest time the row may be claimed: now for new rows, later while leased or backing off.
        t.bigInteger('available_at').notNullable();
        t.string('claim_token', 36).nullable();
        t.bigInteger('dispatched_at').nullable();
        t.text('last_error').nullable();
        t.index(['status', 'available_at'], `${table}_due_idx`);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists(table);
    },
  };
}
