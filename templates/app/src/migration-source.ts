// Lists the files of `migrations/` under their names without extension, so one database can be
// migrated from the TypeScript sources and from the compiled build alike (Knex's own directory
// source records `x.ts` and `x.js` as two different migrations).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

export class DirectoryMigrationSource implements Knex.MigrationSource<string> {
  constructor(
    private readonly directory: string,
    private readonly extension: string,
  ) {}

  async getMigrations(): Promise<string[]> {
    const files = await readdir(this.directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    return files
      .filter((file) => file.endsWith(this.extension) && !file.endsWith(`.d${this.extension}`))
      .sort();
  }

  getMigrationName(file: string): string {
    return file.slice(0, -this.extension.length);
  }

  async getMigration(file: string): Promise<Knex.Migration> {
    return (await import(pathToFileURL(join(this.directory, file)).href)) as Knex.Migration;
  }
}
