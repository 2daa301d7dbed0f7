// The database check of readiness: the app's Knex answers a query, and no migration is pending.
import type { Knex } from 'knex';
import { HealthCheckDown, type HealthCheck } from './check.js';

/** The parts of a Knex migrator configuration the pending list needs. */
interface MigrationSettings {
  migrationSource?: Knex.MigrationSource<unknown>;
  loadExtensions?: readonly string[];
  tableName?: string;
  schemaName?: string;
}

/**
 * The names of the migrations `migrations` lists that the database has not run, in order, read
 * without writing anything: where Knex's own `migrate.list()` creates its bookkeeping tables, a
 * database nobody migrated stays as it is. The migrations table missing means all are pending.
 *
 * @example
 * await pendingMigrations(knex, { migrationSource }); // ['20260101_create_products']
 */
export async function pendingMigrations(
  knex: Knex,
  migrations: Knex.MigratorConfig = {},
): Promise<string[]> {
  // Knex resolves a `directory` into a migration source on its migrator; the instance's own
  // configuration is the fallback, as it is for `knex.migrate.latest()`.
  const own = (knex.migrate as unknown as { config?: MigrationSettings }).config ?? {};
  const settings = { ...own, ...(migrations as MigrationSettings) };
  const source = settings.migrationSource;
  if (!source) throw new HealthCheckDown('no migration source is configured');
  const files = await source.getMigrations([...(settings.loadExtensions ?? [])]);
  const all = files.map((file) => source.getMigrationName(file));
  const table = settings.tableName ?? 'knex_migrations';
  const schema = settings.schemaName;
  const builder = schema ? knex.schema.withSchema(schema) : knex.schema;
  if (!(await builder.hasTable(table))) return all;
  const query = schema ? knex.withSchema(schema).from(table) : knex.from(table);
  const done = new Set((await query.select('name')).map((row: { name: string }) => row.name));
  return all.filter((name) => !done.has(name));
}

export interface DatabaseCheckOptions {
  /** The migrations the app runs (a migration source, as in knexfile). @default the Knex config's */
  migrations?: Knex.MigratorConfig;
  /** @default 'database' */
  name?: string;
}

/**
 * Up when the database answers a read of the migrations table and no migration is pending: a
 * process started with migrations switched off on a database not yet migrated stays unready
 * (`not migrated: n migrations are pending`) until another process or `npm run migrate` runs
 * them. Once the database is found migrated, later probes only read one row of that table (a read
 * of a real table, so a SQLite file another connection has locked counts as down too).
 *
 * @example
 * const checks: HealthCheck[] = [databaseCheck(knex, { migrations })];
 */
export function databaseCheck(knex: Knex, options: DatabaseCheckOptions = {}): HealthCheck {
  let migrated = false;
  const table = (options.migrations?.tableName ?? 'knex_migrations') as string;
  const schema = options.migrations?.schemaName;
  return {
    name: options.name ?? 'database',
    async check() {
      if (migrated) {
        await (schema ? knex.withSchema(schema) : knex).from(table).first('name');
        return;
      }
      const pending = await pendingMigrations(knex, options.migrations);
      if (pending.length > 0) {
        const count = pending.length === 1 ? '1 migration is' : `${pending.length} migrations are`;
        throw new HealthCheckDown(`not migrated: ${count} pending`);
      }
      migrated = true;
    },
  };
}
