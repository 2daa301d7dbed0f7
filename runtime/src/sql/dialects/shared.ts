// The parts two dialects share: quoting, the SKIP LOCKED claim, the counter-table sequences of
// MySQL and SQLite, wrapping a driver's queries, database names in server URLs, and the partial
// unique indexes of PostgreSQL and SQLite.
import type { Knex } from 'knex';
import type { ClaimRequest, SequenceShape, ServerConnector } from './dialect.js';

/** `?, ?, ?` for `count` values. */
export const marks = (count: number): string => Array(count).fill('?').join(', ');

/** Double-quote quoting shared by PostgreSQL and SQLite. */
export const quoteDouble = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

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

/** A throwaway database's URL on the server `url` names: the same name with `_<suffix>`. */
export const throwawayOnServer = (url: string, suffix: string): string =>
  withDatabaseName(url, `${databaseNameOf(url).slice(0, 50)}_${suffix}`);

/** Drops the database `url` names through a connection to `serverDatabase` on its server. */
export async function dropOnServer(
  url: string,
  serverDatabase: string,
  onServer: ServerConnector,
  sql: string,
): Promise<void> {
  await onServer(withDatabaseName(url, serverDatabase), (server) =>
    server.raw(sql, [databaseNameOf(url)]),
  );
}

/**
 * The claim of PostgreSQL and MySQL: `SELECT ... FOR UPDATE SKIP LOCKED` then the update, in one
 * READ COMMITTED transaction (PostgreSQL's default anyway). Under MySQL's REPEATABLE READ the
 * SELECT ... FOR UPDATE also locks the gaps of the due index it scans: a change recording an
 * event then waits for the claim before its outbox row can go there, and the two deadlock when
 * the claim's UPDATE needs the row that insert already put in the primary key. Row locks alone
 * are what keep two claims apart.
 */
export function claimSkippingLocked(
  knex: Knex,
  { table, columns, due, stamp }: ClaimRequest,
): Promise<Record<string, unknown>[]> {
  return knex.transaction(
    async (trx) => {
      const ids = (await due(trx(table).select('id')).forUpdate().skipLocked()).map(
        (row: { id: number | string }) => row.id,
      );
      if (ids.length === 0) return [];
      await stamp(trx(table).whereIn('id', ids));
      return trx(table)
        .select(columns as string[])
        .whereIn('id', ids)
        .orderBy('id');
    },
    { isolationLevel: 'read committed' },
  );
}

/** `insertReturningIds` where `INSERT ... RETURNING` exists (PostgreSQL, SQLite 3.35+). */
export async function insertReturning(
  db: Knex | Knex.Transaction,
  table: string,
  rows: readonly Record<string, unknown>[],
  key: string,
): Promise<Map<string, number | string>> {
  const inserted = (await db(table).insert(rows as Record<string, unknown>[], [
    'id',
    key,
  ])) as Record<string, unknown>[];
  return new Map(inserted.map((row) => [String(row[key]), row.id as number | string]));
}

/** `writtenRows` where `INSERT ... RETURNING` and `UPDATE ... RETURNING` exist (PostgreSQL, SQLite 3.35+). */
export async function returningRows(query: Knex.QueryBuilder): Promise<Record<string, unknown>[]> {
  return (await query.returning('*')) as Record<string, unknown>[];
}

/** Sequences as rows of a counter table (MySQL, SQLite): each holds the last value handed out. */
export const counterSequences = {
  async ensure(knex: Knex, sequences: readonly SequenceShape[], table: string): Promise<void> {
    if (!(await knex.schema.hasTable(table))) {
      await knex.schema.createTable(table, (t) => {
        t.string('name', 63).primary();
        // The last value handed out; a new counter holds start - 1.
        t.bigInteger('value').notNullable();
      });
    }
    if (sequences.length === 0) return;
    await knex(table)
      .insert(sequences.map((s) => ({ name: s.name, value: s.start - 1 })))
      .onConflict('name')
      .ignore();
  },
  /** Drops the counter rows, and the counter table once it is empty. */
  async drop(knex: Knex, sequences: readonly SequenceShape[], table: string): Promise<void> {
    if (!(await knex.schema.hasTable(table))) return;
    await knex(table)
      .whereIn(
        'name',
        sequences.map((s) => s.name),
      )
      .del();
    const [left] = await knex(table).count({ n: '*' });
    if (Number(left?.n ?? 0) === 0) await knex.schema.dropTable(table);
  },
  /** Counter rows say nothing in an error: the caller looks at the row. */
  failure: (): undefined => undefined,
};

type Callback = (error: unknown, ...rest: unknown[]) => unknown;

/** The part of a driver's connection `watchQueries` wraps. */
export interface QueryingConnection {
  query(...args: unknown[]): unknown;
}

/**
 * Wraps `connection.query` so that `onError` sees the error of every query that ends with one,
 * and `withOptions` may rewrite the query's first argument.
 */
export function watchQueries(
  connection: QueryingConnection,
  onError: (error: unknown) => void,
  withOptions: (sql: unknown) => unknown = (sql) => sql,
): void {
  const query = connection.query;
  connection.query = function boundedQuery(this: unknown, ...args: unknown[]) {
    args[0] = withOptions(args[0]);
    const last = args.length - 1;
    const callback = args[last];
    if (last > 0 && typeof callback === 'function') {
      args[last] = function settled(this: unknown, error: unknown, ...rest: unknown[]) {
        if (error) onError(error);
        return (callback as Callback).call(this, error, ...rest);
      };
    }
    return query.apply(this, args);
  };
}

/** Connections closed after a query timed out, which the pool must not hand out again. */
const dropped = new WeakSet<object>();

/** Closes `connection` for good: `close` ends its socket, and the pool will not reuse it. */
export function dropConnection(connection: object, close: () => void): void {
  dropped.add(connection);
  close();
}

/**
 * A Knex `pool.validate` hook: false for a connection dropped after a query timed out, so the pool
 * opens a fresh one rather than handing that one to the next query (node-postgres, for one, only
 * notices a closed socket when it next writes to it).
 */
export const connectionUsable = (connection: unknown): boolean =>
  !dropped.has(connection as object);

/** A `pool.afterCreate` hook running `setUp` on each new connection, reporting what it throws. */
export function afterCreate(setUp: (connection: unknown) => void) {
  return function afterCreate(
    connection: unknown,
    done: (error: Error | null, connection: unknown) => void,
  ): void {
    try {
      setUp(connection);
      done(null, connection);
    } catch (error) {
      done(error as Error, connection);
    }
  };
}

/** The code of a driver error as text, when it has one. */
export const codeOf = (error: { code?: unknown }): string | undefined =>
  typeof error.code === 'string' ? error.code : undefined;

/** The name of a unique index over `columns` of `table`, as Knex names one (`books_isbn_unique`). */
export const uniqueIndexName = (table: string, columns: readonly string[]): string =>
  `${table}_${columns.join('_')}_unique`.replace(/[-.]/g, '_').toLowerCase();

/** PostgreSQL and SQLite: a partial unique index, `... WHERE deleted_on IS NULL`. */
export const partialUniqueIndex = {
  create: async (knex: Knex, table: string, columns: readonly string[], deletedColumn: string) => {
    await knex.raw(
      `CREATE UNIQUE INDEX ?? ON ?? (${columns.map(() => '??').join(', ')}) WHERE ?? IS NULL`,
      [uniqueIndexName(table, columns), table, ...columns, deletedColumn],
    );
  },
  drop: async (knex: Knex, table: string, columns: readonly string[]) => {
    await knex.raw('DROP INDEX IF EXISTS ??', [uniqueIndexName(table, columns)]);
  },
};

/** The name of a list index over the live rows (`books_tenant_id_created_on_id_live`). */
export const liveIndexName = (table: string, columns: readonly string[]): string =>
  `${table}_${columns.join('_')}_live`.replace(/[-.]/g, '_').toLowerCase();

/** PostgreSQL and SQLite: a partial index, `... WHERE deleted_on IS NULL`. */
export const partialIndex = {
  create: async (
    knex: Knex,
    table: string,
    scope: readonly string[],
    columns: readonly string[],
    deletedColumn: string,
  ) => {
    const all = [...scope, ...columns];
    await knex.raw(`CREATE INDEX ?? ON ?? (${all.map(() => '??').join(', ')}) WHERE ?? IS NULL`, [
      liveIndexName(table, all),
      table,
      ...all,
      deletedColumn,
    ]);
  },
  drop: async (knex: Knex, table: string, columns: readonly string[]) => {
    await knex.raw('DROP INDEX IF EXISTS ??', [liveIndexName(table, columns)]);
  },
  // PostgreSQL's B-tree deduplicates equal values: one tenant's 20,000 live rows take 36 pages
  // of an index on the tenant alone against 243 of the list's, and a count reads it in half the
  // time, as fast as a count of a table without tenants.
  countIndexes: true,
};
