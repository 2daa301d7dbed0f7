// Named statements on PostgreSQL. node-postgres sends each query as an unnamed statement, which
// the server parses and plans anew every time; a list page's or a scoped get's planning (the
// indexes weighed, a partial index's predicate proved) can cost as much as its execution. A
// statement given a name is parsed once per connection and, after its first runs, may be run
// from a cached generic plan (PostgreSQL's `plan_cache_mode = auto` keeps planning each run when
// the generic plan costs more than the custom ones). Each pooled connection names at most
// PREPARED_PER_CONNECTION distinct statements; the rest run unnamed, so a client composing many
// list shapes does not grow a backend's memory without bound.
import { createHash } from 'node:crypto';

/** How many distinct statements one connection prepares under a name; the rest run unnamed. */
export const PREPARED_PER_CONNECTION = 200;

// Data statements only: a utility statement (BEGIN, SET, EXPLAIN, DDL) is not planned, or is
// planned anew whatever its name.
const PLANNED = /^\s*(?:select|insert|update|delete|with)\b/i;

// SQLSTATE 0A000 with this message: the table's columns changed since the statement was
// prepared (a migration added one under `select *`), so its plan cannot be reused.
const RESULT_TYPE_CHANGED = 'cached plan must not change result type';

interface QueryConfig {
  text?: unknown;
  name?: unknown;
  submit?: unknown;
}

export interface PreparingClient {
  query(...args: unknown[]): unknown;
  getTransactionStatus?(): string | null;
}

type Callback = (error: unknown, ...rest: unknown[]) => unknown;

const names = new Map<string, string>();

/** A statement's name: a digest of its text, so every connection names it alike. */
function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= 10 * PREPARED_PER_CONNECTION) names.clear();
    name = `sk_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name;
}

const isResultTypeChange = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === '0A000' &&
  String((error as { message?: unknown }).message).includes(RESULT_TYPE_CHANGED);

/**
 * Wraps `client.query` so that each data statement Knex sends runs under a name of its own
 * (the first PREPARED_PER_CONNECTION distinct ones on this connection). When a migration has
 * changed a table under a prepared statement, PostgreSQL refuses to run it (SQLSTATE 0A000): that
 * statement runs unnamed on this connection from then on, and the query is sent again at once when
 * it ran outside a transaction (a transaction is aborted by then, and fails as it would).
 */
export function prepareStatements(client: PreparingClient): void {
  const query = client.query;
  const prepared = new Set<string>();
  const stale = new Set<string>();
  client.query = function namedQuery(this: unknown, ...args: unknown[]) {
    const config = args[0] as QueryConfig | null;
    const last = args.length - 1;
    const callback = args[last];
    if (
      typeof config !== 'object' ||
      config === null ||
      config.name !== undefined ||
      // A submittable (a cursor, a query stream) carries its own state: passed on as it is.
      config.submit !== undefined ||
      typeof config.text !== 'string' ||
      typeof callback !== 'function' ||
      !PLANNED.test(config.text)
    ) {
      return query.apply(this, args);
    }
    const name = nameOf(config.text);
    if (stale.has(name) || (!prepared.has(name) && prepared.size >= PREPARED_PER_CONNECTION)) {
      return query.apply(this, args);
    }
    prepared.add(name);
    const named = [{ ...config, name }, ...args.slice(1, last)];
    return query.call(this, ...named, (error: unknown, ...rest: unknown[]) => {
      if (!error || !isResultTypeChange(error)) return (callback as Callback)(error, ...rest);
      stale.add(name);
      if (client.getTransactionStatus?.() !== 'I') return (callback as Callback)(error, ...rest);
      return query.apply(this, args);
    });
  };
}

/**
 * `url` without its `prepared_statements` parameter, and whether that parameter leaves named
 * statements on (anything but `false`).
 */
export function preparedStatementsOf(url: string): { connectionString: string; prepared: boolean } {
  if (!url.includes('prepared_statements=')) return { connectionString: url, prepared: true };
  const parsed = new URL(url);
  const prepared = parsed.searchParams.get('prepared_statements') !== 'false';
  parsed.searchParams.delete('prepared_statements');
  return { connectionString: parsed.toString(), prepared };
}
