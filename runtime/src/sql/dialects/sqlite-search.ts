// SQLite's search index: an FTS5 table with the trigram tokenizer over the table's searched text
// columns (external content: the table itself holds the text), kept in step by triggers, so a row
// written by any means (an import, the sqlite3 shell) is found. The list query narrows its search
// to the rows the index names, then keeps its exact match (slicekit_lower LIKE), so results stay
// those of the plain match: the index only serves terms whose matches it cannot miss.
import type { Knex } from 'knex';
import { quoteDouble } from './shared.js';

/** The FTS5 table of `table` (its triggers are named after it). */
export const ftsName = (table: string) => `${table}__search`;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The statements making the index over `columns` and filling it from the rows there are. */
export function createStatements(table: string, columns: readonly string[]): string[] {
  const fts = quoteDouble(ftsName(table));
  const t = quoteDouble(table);
  const cols = columns.map(quoteDouble);
  const values = (row: 'new' | 'old') => cols.map((c) => `${row}.${c}`).join(', ');
  const remove = `INSERT INTO ${fts} (${fts}, rowid, ${cols.join(', ')}) VALUES ('delete', old.rowid, ${values('old')});`;
  const add = `INSERT INTO ${fts} (rowid, ${cols.join(', ')}) VALUES (new.rowid, ${values('new')});`;
  const trigger = (suffix: string) => quoteDouble(`${ftsName(table)}_${suffix}`);
  return [
    `CREATE VIRTUAL TABLE ${fts} USING fts5(${cols.join(', ')}, content=${literal(table)}, content_rowid='rowid', tokenize='trigram')`,
    `CREATE TRIGGER ${trigger('insert')} AFTER INSERT ON ${t} BEGIN ${add} END`,
    `CREATE TRIGGER ${trigger('delete')} AFTER DELETE ON ${t} BEGIN ${remove} END`,
    `CREATE TRIGGER ${trigger('update')} AFTER UPDATE OF ${cols.join(', ')} ON ${t} BEGIN ${remove} ${add} END`,
    `INSERT INTO ${fts} (${fts}) VALUES ('rebuild')`,
  ];
}

/** The statements dropping it, whether or not it is there. */
export function dropStatements(table: string): string[] {
  const name = ftsName(table);
  return [
    ...['insert', 'delete', 'update'].map(
      (s) => `DROP TRIGGER IF EXISTS ${quoteDouble(`${name}_${s}`)}`,
    ),
    `DROP TABLE IF EXISTS ${quoteDouble(name)}`,
  ];
}

interface Catalog {
  version: number;
  /** Table -> the columns its search index covers. */
  indexed: Map<string, Set<string>>;
}

interface Statement {
  all(...bindings: unknown[]): Record<string, unknown>[];
  pluck(): { get(): unknown };
}

/** The search indexes each database (a Knex client) has, as last read from its schema. */
const catalogs = new WeakMap<object, Catalog>();
/** Each connection's `PRAGMA schema_version`, prepared once: it runs before every list query. */
const schemaVersions = new WeakMap<object, { get(): unknown }>();

/**
 * Reads the search indexes of the database `connection` is open on into the catalog of `client`,
 * when its schema changed since the last read (`PRAGMA schema_version`, a read of the header).
 */
export function readSearchIndexes(client: unknown, connection: unknown): void {
  if (typeof client !== 'object' || client === null) return;
  const db = connection as { prepare?(sql: string): Statement };
  if (typeof db?.prepare !== 'function') return;
  let schemaVersion = schemaVersions.get(db);
  if (!schemaVersion) {
    schemaVersion = db.prepare('PRAGMA schema_version').pluck();
    schemaVersions.set(db, schemaVersion);
  }
  const version = Number(schemaVersion.get());
  if (catalogs.get(client)?.version === version) return;
  const indexed = new Map<string, Set<string>>();
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%!_!_search' ESCAPE '!' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%trigram%'",
    )
    .all();
  for (const { name } of tables) {
    const fts = String(name);
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all(fts);
    indexed.set(fts.slice(0, -'__search'.length), new Set(columns.map((c) => String(c.name))));
  }
  catalogs.set(client, { version, indexed });
}

/**
 * The FTS5 query finding every row whose text holds `term` (lower-cased by JavaScript), or
 * undefined when the index could miss one. Trigrams need 3 characters, and the index folds case
 * as Unicode does where JavaScript's toLowerCase() may differ: only ASCII terms are served. Of the
 * characters that are not ASCII, two lower to ASCII: U+212A Kelvin K, which the index folds to k
 * too, and U+0130 İ, which lowers to i and a dot (so it matches a term ending in i) while the
 * index keeps it apart: such a term also looks for its İ form.
 */
export function ftsQuery(term: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (term.length < 3 || !/^[\x00-\x7f]*$/.test(term)) return undefined;
  const phrase = (text: string) => `"${text.replace(/"/g, '""')}"`;
  return /i$/i.test(term)
    ? `${phrase(term)} OR ${phrase(`${term.slice(0, -1)}\u0130`)}`
    : phrase(term);
}

/** The narrowing condition of `ListQueryDialect.searchIndexed` on SQLite. */
export function ftsCondition(
  client: unknown,
  table: string,
  rowid: string,
  columns: readonly string[],
  term: string,
): { sql: string; bindings: unknown[] } | undefined {
  if (typeof client !== 'object' || client === null || columns.length === 0) return undefined;
  const covered = catalogs.get(client)?.indexed.get(table);
  if (!covered || !columns.every((c) => covered.has(c))) return undefined;
  const query = ftsQuery(term);
  if (query === undefined) return undefined;
  const fts = quoteDouble(ftsName(table));
  return { sql: `${rowid} IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`, bindings: [query] };
}

/** Runs `statements` in order on `knex`. */
export async function runAll(knex: Knex, statements: readonly string[]): Promise<void> {
  for (const sql of statements) await knex.raw(sql);
}
