// Knex settings for the database a URL names: a SQLite file path, or a postgres:// or mysql:// URL.
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { DirectoryMigrationSource } from './migration-source.js';

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

/** The database behind a `DATABASE_URL`; anything that is not a server URL is a SQLite file. */
export function dialectOf(url: string): Dialect {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^mysql:\/\//i.test(url)) return 'mysql';
  return 'sqlite';
}

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

/** The Knex configuration for `url`. */
export function knexConfig(url: string): Knex.Config {
  switch (dialectOf(url)) {
    case 'postgres':
      return { client: 'pg', connection: url, pool: { min: 0, max: 10 }, migrations, seeds };
    case 'mysql':
      return {
        client: 'mysql2',
        connection: {
          uri: url,
          supportBigNumbers: true,
          charset: 'utf8mb4',
          // Date-times are UTC on the wire, whatever the time zone of the server or this machine.
          timezone: 'Z',
          // DATE columns as their 'YYYY-MM-DD' text: a Date at midnight would be another day
          // wherever the process runs west or east of that midnight. (mysql2 takes a list of
          // types; Knex's typings know only the boolean form.)
          dateStrings: ['DATE'] as unknown as boolean,
        } as Knex.MySql2ConnectionConfig,
        pool: { min: 0, max: 10 },
        migrations,
        seeds,
      };
    case 'sqlite':
      return {
        client: 'better-sqlite3',
        connection: { filename: url },
        useNullAsDefault: true,
        migrations,
        seeds,
      };
  }
}
