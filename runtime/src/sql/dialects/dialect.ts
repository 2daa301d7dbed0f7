// What differs between PostgreSQL, MySQL/MariaDB and SQLite (long: the one interface of them all),
// with one object per database (postgres.ts, mysql.ts, sqlite.ts), as knex keeps one folder per
// dialect. Every area asks `dialectFor(knex)` and calls a member; no file outside this folder
// names a database.
import type { Knex } from 'knex';
import type { UniqueTextIndex } from './unique-text-index.js';
import type { LiveListIndex, LiveUniqueIndex } from './live-rows-index.js';
import type { SqlFamily } from './family.js';
import type { KeyTableStatements } from './key-table.js';

export type DialectName = SqlFamily;

/** A Knex `pool.afterCreate` hook. */
export type AfterCreate = (
  connection: unknown,
  done: (error: Error | null, connection: unknown) => void,
) => void;

/** What `boundConnection` bounds. */
export interface ConnectionBounds {
  /**
   * MySQL/MariaDB: longest wait for the answer of one statement, given to mysql2 as each query's
   * `timeout` (mysql2 has no per-connection setting). PostgreSQL takes `query_timeout` and
   * `statement_timeout` in its connection settings instead. @default no limit
   */
  queryTimeoutMs?: number;
  /** SQLite: longest wait for a lock another connection holds (`PRAGMA busy_timeout`). @default 5000 */
  busyTimeoutMs?: number;
  /** PostgreSQL: data statements run named, planned once per connection. @default true */
  prepareStatements?: boolean;
}

/** The waits a connection's settings bound (the database area's `DatabaseTimeouts`). */
export interface ConnectionLimits {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  keepAliveMs: number;
  busyTimeoutMs: number;
}

/** A driver's Knex settings for one URL. */
export type ConnectionSettings = Pick<
  Knex.Config,
  'client' | 'connection' | 'pool' | 'useNullAsDefault'
>;

/** Runs `work` on a short-lived connection to the server `url` names (one the database area opens). */
export type ServerConnector = <T>(url: string, work: (server: Knex) => Promise<T>) => Promise<T>;

/** The fields of a driver's error that tell what went wrong. */
export interface ErrorFields {
  name?: unknown;
  code?: unknown;
  errno?: unknown;
  fatal?: unknown;
  sqlState?: unknown;
  message?: unknown;
}

/** What a claim of outbox-like rows needs: which rows are due, and how a claimed row is marked. */
export interface ClaimRequest {
  table: string;
  columns: readonly string[];
  /** Narrows a `select id` to the due rows, in claim order, at most a batch. */
  due(query: Knex.QueryBuilder): Knex.QueryBuilder;
  /** Marks the rows of a query as claimed by `token`. */
  stamp(query: Knex.QueryBuilder): Knex.QueryBuilder;
  token: string;
}

/** A sequence as a dialect stores it. */
export interface SequenceShape {
  name: string;
  start: number;
  max: number;
  valueType: 'int' | 'bigint';
}

/** What `estimateCount` found: a number and whether it is exact, an estimate or a lower bound. */
export interface CountEstimate {
  count: number;
  kind: 'exact' | 'estimated' | 'lowerBound';
}

/** Runs a statement on the connection the list query reads through; answers the driver's result. */
export type ListStatementRunner = (statement: Knex.QueryBuilder | Knex.Raw) => Promise<unknown>;

/** SQL fragments use `?` placeholders for Knex's `whereRaw` / `orderByRaw`. */
export interface ListQueryDialect {
  /** Quotes one identifier (a column or table name, no dots). */
  quote(identifier: string): string;
  /**
   * `expr` matches the LIKE pattern bound to the single `?`, case-insensitively with Unicode case
   * folding, with `!` as the escape character.
   */
  likeCi(expr: string, pattern: string): { sql: string; bindings: unknown[] };
  /** `expr <op> ?` for text in code-point order (byte order of UTF-8) on every database. */
  compareText(
    expr: string,
    op: '=' | '<>' | '<' | '<=' | '>' | '>=',
  ): { sql: string; twice: boolean };
  /** `expr IN (...)` for `count` text values, exact (code points) on every database. */
  textIn(expr: string, count: number): { sql: string; twice: boolean };
  /** The expression ordering text members in code-point order. */
  orderText(expr: string, isEnum: boolean): string;
  /** Suffix giving NULL the same place on every database: first ascending, last descending. */
  nullsOrder(desc: boolean): string;
  /** The placeholder for a whole-number value (PostgreSQL would infer int4 and overflow). */
  readonly integerParam: string;
  /** Rows skipped from which a list page by number finds its ids first (a deferred join). */
  readonly deferredJoinFrom: number | undefined;
  /**
   * Below how many rows `estimated` counts exactly, unless the resource sets `exactCountBelow`:
   * where the database keeps an estimate this only decides when it is trusted; where it keeps
   * none (SQLite) it is also what the bound costs, every row below it stepped over in the index.
   */
  readonly exactCountBelow: number;
  /** The text of `key` inside the JSON document `expr`; SQL NULL for a JSON null or a missing key. */
  jsonText(expr: string, key: string): string;
  /**
   * A FROM item with one row per element of the JSON array `expr` (none when it is not an array),
   * and per entry of `keys` the text of the element itself (`undefined`) or of its member `key`.
   */
  jsonArrayElements(
    expr: string,
    alias: string,
    keys: readonly (string | undefined)[],
  ): { from: string; texts: string[] };
  /**
   * A condition keeping a superset of the rows of `table` where one of `columns` holds `term` (as
   * `likeCi` matches `%term%`), read from the table's search index (`Dialect.searchIndex`), to
   * AND with the exact match; undefined when no index serves the term, and the exact match alone
   * decides. `database` is the Knex client the query runs on, `rowid` the table's row id.
   */
  searchIndexed(
    database: unknown,
    table: string,
    rowid: string,
    columns: readonly string[],
    term: string,
  ): { sql: string; bindings: unknown[] } | undefined;
  /**
   * A connection on which the list query's own SQL functions exist, to run its statements on
   * (release it with `knex.client.releaseConnection`), or undefined when any connection will do.
   * With `search`, what `searchIndexed` reads is first brought up to date for the query built next.
   */
  functionsConnection(knex: Knex, options?: { search?: boolean }): Promise<unknown>;
  /**
   * A cheap number for the rows of `rows` (a `SELECT 1 FROM ... WHERE ...`, no order or paging):
   * the planner's estimate, or where there is none `threshold + 1` as a lower bound once that
   * many rows exist. Undefined below `threshold`: the caller then counts exactly, then cheap.
   */
  estimateCount(
    knex: Knex,
    rows: Knex.QueryBuilder,
    threshold: number,
    run: ListStatementRunner,
  ): Promise<CountEstimate | undefined>;
}

export interface Dialect extends ListQueryDialect {
  readonly name: DialectName;
  /** How people call it: `PostgreSQL`, `MySQL`, `SQLite`. */
  readonly label: string;
  /** The Knex client (the driver package) slicekit runs it through. */
  readonly client: 'pg' | 'mysql2' | 'better-sqlite3';

  /** Narrows `query` to rows whose `column` equals `value` byte for byte, whatever the collation. */
  whereExactly(query: Knex.QueryBuilder, column: string, value: string): Knex.QueryBuilder;
  /**
   * The collation making a text column's `=` and unique indexes compare byte for byte, trailing
   * blanks included, on the server `knex` reaches; undefined where text compares exactly already.
   */
  exactTextCollation(knex: Knex): Promise<string | undefined>;
  /** Locks the rows `query` reads until its transaction ends (a no-op where writes serialise). */
  lockRows(query: Knex.QueryBuilder): Knex.QueryBuilder;
  /**
   * Runs the insert or update `query` and answers the rows it wrote as stored, in the same
   * statement (`RETURNING *`); undefined where the database cannot (MySQL/MariaDB): the caller
   * then reads them back.
   */
  writtenRows(query: Knex.QueryBuilder): Promise<Record<string, unknown>[] | undefined>;
  /** Runs `insert`, doing nothing for a row whose key (first column `key`) is there already. */
  insertMissing(
    insert: Knex.OnConflictQueryBuilder<object, unknown>,
    key: string,
  ): Promise<unknown>;
  /**
   * Claims due rows for `request.token` so that concurrent claimers never take the same row and
   * never wait on each other's rows; answers the claimed rows in id order.
   */
  claim(knex: Knex, request: ClaimRequest): Promise<Record<string, unknown>[]>;
  /**
   * Inserts `rows` into `table` and answers the generated `id` of each, keyed by the value of the
   * row's `key` column (unique per row, set by the caller), in one statement where the database
   * returns ids and at most two where it does not.
   */
  insertReturningIds(
    db: Knex | Knex.Transaction,
    table: string,
    rows: readonly Record<string, unknown>[],
    key: string,
  ): Promise<Map<string, number | string>>;

  readonly sequences: {
    /** Creates the sequences that do not exist yet (`table`: the counter table, where used). */
    ensure(knex: Knex, sequences: readonly SequenceShape[], table: string): Promise<void>;
    /** Drops them again. */
    drop(knex: Knex, sequences: readonly SequenceShape[], table: string): Promise<void>;
    /**
     * Takes the next value, atomically across callers; undefined when no value was taken (the
     * counter is missing or at its maximum; the caller tells which).
     */
    next(knex: Knex, sequence: SequenceShape, table: string): Promise<number | undefined>;
    /** Why taking a value failed, when the error says: past the maximum, or no such sequence. */
    failure(error: unknown): 'exhausted' | 'missing' | undefined;
  };

  /** Which of the database's own errors `error` is (network and Knex errors are not here). */
  readonly errors: {
    /** A unique index refused the row. */
    unique(error: ErrorFields): boolean;
    /** A foreign key refused the write. */
    foreignKey(error: ErrorFields): boolean;
    /** The transaction was aborted so another could go on (deadlock, serialization): retry it. */
    conflict(error: ErrorFields): boolean;
    /** The database did not answer in time, refused or lost the connection, or was too busy. */
    unavailable(error: ErrorFields): boolean;
    /** A column the statement names is not there. */
    unknownColumn(error: ErrorFields): boolean;
  };

  /** The driver settings for `url`, each wait bounded by `limits`. */
  connectionSettings(
    url: string,
    limits: ConnectionLimits,
    pool: { min: number; max: number },
  ): ConnectionSettings;
  /** A `pool.afterCreate` hook bounding each new connection (see `boundConnection`). */
  boundConnection(bounds: ConnectionBounds): AfterCreate;
  /**
   * `config` without the statement timeout, on a pool of one connection, for migrations; null
   * when the database has no statement timeout to lift.
   */
  unboundedStatements(config: Knex.Config): Knex.Config | null;
  /**
   * Runs migrations on `migrator` (its one connection): SQLite turns foreign keys off meanwhile,
   * since it alters a table by copying it and dropping the old one.
   */
  migrating<T>(migrator: Knex, work: () => Promise<T>): Promise<T>;

  /** Creating and dropping the database a URL names (a file, for SQLite). */
  readonly admin: {
    /** Creates it unless it exists; true when it was created. */
    ensureDatabase(url: string, onServer: ServerConnector): Promise<boolean>;
    /** Drops it (for SQLite, deletes the file). */
    dropDatabase(url: string, onServer: ServerConnector): Promise<void>;
    /** A URL for a new throwaway database beside `url`, named with `suffix`. */
    throwawayUrl(url: string, suffix: string): string;
    /** Drops a database `throwawayUrl` named, and what was made for it. */
    dropThrowaway(url: string, onServer: ServerConnector): Promise<void>;
    /** Makes what must exist before a connection opens (a SQLite file's folder). */
    prepare(url: string): void;
  };

  /**
   * The index serving a list's search (a case-insensitive substring match over text columns),
   * made and dropped by migrations (`searchIndexMigration`).
   */
  readonly searchIndex: {
    /** Whether the database has one at all. */
    readonly supported: boolean;
    /** Its name (and that of what goes with it) for `table`. */
    name(table: string): string;
    /** Makes it over `columns` of `table`, over the rows the table holds already. */
    create(knex: Knex, table: string, columns: readonly string[]): Promise<void>;
    /** Drops it (and what keeps it in step), when it is there. */
    drop(knex: Knex, table: string): Promise<void>;
  };

  /**
   * The unique index of one text column, exact or ignoring case as `likeCi` folds, made and
   * dropped by migrations (`uniqueIndexMigration`).
   */
  readonly uniqueText: UniqueTextIndex;

  /** A unique index over the live rows of a soft-deleting table (`liveUniqueMigration`). */
  readonly liveUnique: LiveUniqueIndex;

  /** A list index over the live rows of a soft-deleting table (`liveIndexMigration`). */
  readonly liveIndex: LiveListIndex;

  /** The idempotency key table's statements; undefined where keys stay in the process. */
  readonly keyTable: KeyTableStatements | undefined;

  /** What an ALTER migration written by the upgrade generator does here. */
  readonly schema: {
    /** Changing an enum's values rebuilds the table (copy, drop, rename). */
    readonly rebuildsToChangeEnum: boolean;
    /** An enum is a text column with a named CHECK constraint (renamed along with its table). */
    readonly enumIsCheckConstraint: boolean;
    /** Knex reads the table to alter it (to rebuild it): the SQL is seen only by running it. */
    readonly readsTableToAlter: boolean;
  };
}
