// The database check on each database: down while migrations are pending (reading them creates
// nothing), up once migrated, down again for a migration the database has not run.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { databaseCheck, HealthCheckDown, pendingMigrations } from '@slicekit/runtime/health';
import { describeEachDatabase } from '../../support/services.js';

function sourceOf(names: string[]): Knex.MigrationSource<string> {
  return {
    getMigrations: async () => names,
    getMigrationName: (name) => name,
    getMigration: async (name) => ({
      up: (knex: Knex) => knex.schema.createTable(`health_${name}`, (table) => table.increments()),
      down: (knex: Knex) => knex.schema.dropTable(`health_${name}`),
    }),
  };
}

const downReason = (check: Promise<void>) =>
  check.then(
    () => 'up',
    (error: unknown) => (error instanceof HealthCheckDown ? error.message : String(error)),
  );

describeEachDatabase('databaseCheck', (db) => {
  const first = { migrationSource: sourceOf(['a1', 'a2']) };

  it('is down on a database never migrated, and creates no table finding out', async () => {
    expect(await pendingMigrations(db.knex, first)).to.deep.equal(['a1', 'a2']);
    const check = databaseCheck(db.knex, { migrations: first });
    expect(check.name).to.equal('database');
    expect(await downReason(check.check(AbortSignal.timeout(5000)))).to.equal(
      'not migrated: 2 migrations are pending',
    );
    expect(await db.knex.schema.hasTable('knex_migrations')).to.equal(false);
    expect(await db.knex.schema.hasTable('knex_migrations_lock')).to.equal(false);
  });

  it('is up once migrated, and down for a migration the database has not run', async () => {
    await db.knex.migrate.latest(first);
    expect(await pendingMigrations(db.knex, first)).to.deep.equal([]);
    const check = databaseCheck(db.knex, { migrations: first });
    expect(await downReason(check.check(AbortSignal.timeout(5000)))).to.equal('up');

    const newer = { migrationSource: sourceOf(['a1', 'a2', 'a3']) };
    const behind = databaseCheck(db.knex, { migrations: newer, name: 'db' });
    expect(await downReason(behind.check(AbortSignal.timeout(5000)))).to.equal(
      'not migrated: 1 migration is pending',
    );
  });
});
