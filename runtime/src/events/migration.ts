// The Knex migrations of the transactional outbox table: the table, then the columns an event
// needs to leave the process (a global id, its trace, and what part of its delivery is done).
import type { Knex } from 'knex';
import { DEFAULT_OUTBOX_TABLE, type OutboxTableOptions } from './types.js';

/** A Knex migration module: what a file in the migrations folder exports. */
export interface KnexMigration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Columns added by `outboxEventIdMigration`: `event_id` the event's UUID, `traceparent` the W3C
 * trace context it was recorded in, `handled_at` when the in-process subscribers were done and
 * `relayed_at` when the broker confirmed it (epoch ms), so a broker outage never runs the
 * subscribers again and a failing subscriber never publishes twice.
 */
const eventColumns = ['event_id', 'traceparent', 'handled_at', 'relayed_at'] as const;

function addEventColumns(t: Knex.CreateTableBuilder, missing: ReadonlySet<string>): void {
  if (missing.has('event_id')) t.string('event_id', 36).nullable();
  if (missing.has('traceparent')) t.string('traceparent', 64).nullable();
  if (missing.has('handled_at')) t.bigInteger('handled_at').nullable();
  if (missing.has('relayed_at')) t.bigInteger('relayed_at').nullable();
}

/**
 * The migration creating the outbox table. Times are epoch milliseconds in BIGINT columns so the
 * three databases compare them the same way, with no time-zone conversion. A table created now
 * already has the columns of `outboxEventIdMigration`, which then finds nothing to add.
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
        addEventColumns(t, new Set(eventColumns));
        t.index(['status', 'available_at'], `${table}_due_idx`);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists(table);
    },
  };
}

/**
 * The migration adding to an outbox table created before them the columns that let an event
 * leave the process: `event_id`, `traceparent`, `handled_at` and `relayed_at`. Rows recorded
 * before it keep a null `event_id` and are given one, stored, the first time they are claimed (as
 * are rows a process still running the previous version records during a rolling upgrade), so the
 * migration itself rewrites no row and stays instant on a large outbox.
 *
 * @example
 * // migrations/20240102000000_outbox_event_id.ts
 * export const { up, down } = outboxEventIdMigration();
 */
export function outboxEventIdMigration(options: OutboxTableOptions = {}): KnexMigration {
  const table = options.table ?? DEFAULT_OUTBOX_TABLE;
  // One question at a time: a migration's `knex` is a transaction, one connection, which takes
  // one query at a time (node-postgres would queue the others, and warns that it will stop).
  const presence = async (knex: Knex) => {
    const found: string[] = [];
    for (const column of eventColumns) {
      if (await knex.schema.hasColumn(table, column)) found.push(column);
    }
    return found;
  };
  return {
    async up(knex) {
      const present = new Set<string>(await presence(knex));
      const missing = new Set(eventColumns.filter((c) => !present.has(c)));
      if (missing.size === 0) return;
      await knex.schema.alterTable(table, (t) => addEventColumns(t, missing));
    },
    async down(knex) {
      const present = await presence(knex);
      if (present.length === 0) return;
      await knex.schema.alterTable(table, (t) => {
        t.dropColumns(...present);
      });
    },
  };
}
