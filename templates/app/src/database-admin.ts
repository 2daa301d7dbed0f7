// Creating and dropping the database a server URL names: `npm run migrate` creates a new app's
// database when the server has none by that name, and each test run gets a throwaway one.
import { rm } from 'node:fs/promises';
import knexFactory, { type Knex } from 'knex';
import { dialectOf, knexConfig } from './knexfile.js';

/** `url` with its database name replaced by `name`. */
export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** The database name in a server URL. */
export function databaseNameOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

// A connection to the server itself: PostgreSQL's maintenance database, or no database on MySQL.
async function withServer<T>(url: string, work: (server: Knex) => Promise<T>): Promise<T> {
  const serverUrl = withDatabaseName(url, dialectOf(url) === 'postgres' ? 'postgres' : '');
  const server = knexFactory({ ...knexConfig(serverUrl), pool: { min: 0, max: 1 } });
  try {
    return await work(server);
  } finally {
    await server.destroy();
  }
}

/** Creates the database `url` names unless it exists; true when it was created. SQLite: no-op. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') return false;
  const name = databaseNameOf(url);
  return withServer(url, async (server) => {
    if (dialect === 'postgres') {
      const found = await server('pg_database').where({ datname: name }).first('datname');
      if (found) return false;
      await server.raw('create database ??', [name]);
      return true;
    }
    const [rows] = (await server.raw('show databases like ?', [name])) as [unknown[]];
    if (rows.length > 0) return false;
    await server.raw('create database ?? character set utf8mb4 collate utf8mb4_unicode_ci', [name]);
    return true;
  });
}

/** Drops the database `url` names (for SQLite, deletes the file). */
export async function dropDatabase(url: string): Promise<void> {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(url + suffix, { force: true })));
    return;
  }
  await withServer(url, async (server) => {
    const name = databaseNameOf(url);
    await server.raw(
      dialect === 'postgres'
        ? 'drop database if exists ?? with (force)'
        : 'drop database if exists ??',
      [name],
    );
  });
}
