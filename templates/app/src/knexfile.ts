// Knex settings for the database DATABASE_URL names: the runtime's (drivers, timeouts, keepalive,
// MySQL dates and time zone, SQLite foreign keys) with this app's migrations and seeds. Override
// any of them here, e.g. `return { ...knexConfigOf(url, {...}), debug: true }`.
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { knexConfig as knexConfigOf, type DatabaseTimeouts } from '@slicekit/runtime/database';
import { DirectoryMigrationSource } from './migration-source.js';

// Migrations and seeds run as TypeScript under tsx (`npm run dev`, `npm test`) and as JavaScript
// from the compiled build (`npm start`); the extension of this very file tells which.
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

export const migrations: Knex.MigratorConfig = {
  migrationSource: new DirectoryMigrationSource(
    fileURLToPath(new URL('../migrations/', import.meta.url)),
    extension,
  ),
};

export const seeds: Knex.SeederConfig = {
  directory: fileURLToPath(new URL('../seeds/', import.meta.url)),
  loadExtensions: [extension],
};

/** The Knex configuration for `url`, each wait bounded by `timeouts` (src/config.ts's). */
export function knexConfig(url: string, timeouts?: DatabaseTimeouts): Knex.Config {
  return knexConfigOf(url, { timeouts, migrations, seeds });
}
