// `migrateLatest`: the one migration entry point for the CLI command and the app's start-up.
import type { Knex } from 'knex';
import {
  applyReferenceData,
  type ApplyReferenceDataOptions,
  type ReferenceDataReport,
} from './apply.js';
import type { ReferenceDataSet } from './define.js';

export interface MigrateLatestOptions extends ApplyReferenceDataOptions {
  /** Passed to `knex.migrate.latest()`. @default the Knex instance's own `migrations` config */
  migrations?: Knex.MigratorConfig;
  /** Fixed rows applied after the migrations. @default [] */
  referenceData?: readonly ReferenceDataSet[];
}

export interface MigrateLatestResult {
  /** Migration batch number Knex used (0 when nothing was pending). */
  batch: number;
  /** Names of the migrations this call ran. */
  migrations: string[];
  referenceData: ReferenceDataReport;
}

/**
 * Runs pending migrations, then applies reference data. The generated app calls it from both its
 * `npm run migrate` script and its start-up, so the two paths cannot drift apart.
 *
 * @example
 * await migrateLatest(knex, { migrations: { directory: 'migrations' }, referenceData, logger });
 */
export async function migrateLatest(
  knex: Knex,
  options: MigrateLatestOptions = {},
): Promise<MigrateLatestResult> {
  const [batch, migrations] = (await knex.migrate.latest(options.migrations)) as [number, string[]];
  const referenceData = await applyReferenceData(knex, options.referenceData ?? [], options);
  if (migrations.length > 0) {
    options.logger?.info({ batch, migrations }, `migrations: ran ${migrations.length}`);
  }
  return { batch, migrations, referenceData };
}
