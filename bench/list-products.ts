// The sample Product's table for `npm run bench:list` (bench/list-limits.ts): the slice generated
// from docs/examples/product.yaml (price sortable, isDiscontinued filterable), its create
// migration run, and BENCH_ROWS rows generated inside the database over ten owners, loaded with
// the secondary and search indexes made over the rows afterwards.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import nodePlop from 'node-plop';
import { registerEntityGenerator } from '../generators/entity/index.js';
import type { ListResource } from '../runtime/src/list-query/index.js';

type Dialect = 'postgres' | 'mysql' | 'sqlite';
type Row = Record<string, unknown>;

/** The rows of a raw result, whatever the driver's shape. */
export function rowsOf(result: unknown): Row[] {
  return (
    Array.isArray(result)
      ? Array.isArray(result[0])
        ? result[0]
        : result
      : (result as { rows: Row[] }).rows
  ) as Row[];
}

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}
export interface Generated {
  migration: Migration;
  resource: ListResource<unknown>;
  searchColumns: string[];
}

/** The Product slice generated from docs/examples/product.yaml, sortable price, filterable flag. */
export async function generateProduct(): Promise<Generated> {
  const dir = join(process.cwd(), '.work', `bench-limits-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  // Its modules are imported from there: the folder goes when the bench ends.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'src/slices'), { recursive: true });
  const spec = readFileSync(join(process.cwd(), 'docs/examples/product.yaml'), 'utf8')
    .replace('minimum: 0.01 }', 'minimum: 0.01, sortable: true }')
    .replace('default: false }', 'default: false, filterable: true }');
  writeFileSync(join(dir, 'product.yaml'), spec);
  const plop = await nodePlop(undefined, { destBasePath: dir, force: false });
  registerEntityGenerator(plop);
  const result = await plop
    .getGenerator('entity')
    .runActions({ specFile: join(dir, 'product.yaml') });
  if (result.failures.length) throw new Error(JSON.stringify(result.failures));
  const file = readdirSync(join(dir, 'migrations'))[0]!;
  const migration = (await import(pathToFileURL(join(dir, 'migrations', file)).href)) as Migration;
  const dto = (await import(
    pathToFileURL(join(dir, 'src/slices/products/product.dto.ts')).href
  )) as {
    productResource: ListResource<unknown>;
  };
  const text = readFileSync(join(dir, 'migrations', file), 'utf8');
  const searchColumns = [
    ...(/columns: \[([^\]]*)\]/.exec(text)?.[1] ?? '').matchAll(/'(\w+)'/g),
  ].map((m) => m[1]!);
  return { migration, resource: dto.productResource, searchColumns };
}

/** SQL computing a Product row from the row number `n`. */
function rowSql(d: Dialect): string {
  const cat = (...p: string[]) =>
    d === 'mysql' ? `CONCAT(${p.join(', ')})` : p.map((x) => `(${x})`).join(' || ');
  const id =
    d === 'postgres'
      ? `md5(n::text)::uuid`
      : d === 'mysql'
        ? `CONCAT(LPAD(HEX(n), 8, '0'), '-0000-4000-8000-', LPAD(HEX(n * 7), 12, '0'))`
        : `printf('%08x-0000-4000-8000-%012x', n, n * 7)`;
  const created =
    d === 'postgres'
      ? `TIMESTAMPTZ '2024-01-01 00:00:00+00' + make_interval(secs => (n * 13) % 31536000)`
      : d === 'mysql'
        ? `TIMESTAMPADD(SECOND, (n * 13) % 31536000, '2024-01-01 00:00:00')`
        : `1704067200000 + ((n * 13) % 31536000) * 1000`;
  const user = cat(`'user'`, `n % 10`);
  const flag = d === 'postgres' ? 'n % 5 = 0' : 'CASE WHEN n % 5 = 0 THEN 1 ELSE 0 END';
  return `SELECT ${id} AS id, ${cat(`'Product '`, `(n * 7919) % 1000003`)} AS name,
    ((n * 37) % 10000) / 100.0 + 0.01 AS price, ${flag} AS is_discontinued, ${user} AS owned_by,
    ${user} AS created_by, ${created} AS created_on, ${user} AS updated_by, ${created} AS updated_on`;
}

export function fillSql(d: Dialect, table: string, from: number, to: number): string {
  const cols = `(id, name, price, is_discontinued, owned_by, created_by, created_on, updated_by, updated_on)`;
  if (d === 'postgres') {
    return `INSERT INTO ${table} ${cols} ${rowSql(d)} FROM generate_series(${from}::bigint, ${to}) AS s(n)`;
  }
  if (d === 'sqlite') {
    return `INSERT INTO ${table} ${cols} WITH RECURSIVE s(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM s WHERE n < ${to}) ${rowSql(d)} FROM s`;
  }
  const width = Math.max(1, Math.ceil(Math.log10(to - from + 1)));
  const digits = Array.from(
    { length: width },
    (_, i) =>
      `(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d${i}`,
  );
  const n = Array.from({ length: width }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
  return `INSERT INTO ${table} ${cols} SELECT * FROM (${rowSql(d)} FROM (SELECT ${n} + ${from} AS n FROM ${digits.join(' CROSS JOIN ')}) nums WHERE n <= ${to}) gen`;
}

/** The products table as the generated migration makes it, holding `rows` rows. */
export async function ensureProducts(knex: Knex, d: Dialect, g: Generated, rows: number) {
  if (await knex.schema.hasTable('bench_limits_meta')) {
    const meta = await knex('bench_limits_meta').first();
    if (Number(meta?.rows) === rows) return;
  }
  const started = performance.now();
  await knex.schema.dropTableIfExists('bench_limits_meta');
  await g.migration.down(knex).catch(() => undefined);
  await g.migration.up(knex);
  // Filled without the search index, which is then made over the rows (as the migration does
  // for a table holding rows): the same index, made faster than row by row.
  const search = await import('../runtime/src/database/search-index.js');
  const index = search.searchIndexMigration({ table: 'products', columns: g.searchColumns });
  await index.down(knex);
  // The other secondary indexes too: a B-tree made over the rows is made in one sort.
  const restore = await dropSecondaryIndexes(knex, d, 'products');
  // In chunks: MariaDB's digits generator and undo log stay small, and progress shows.
  const chunk = 1_000_000;
  for (let from = 1; from <= rows; from += chunk) {
    await knex.raw(fillSql(d, 'products', from, Math.min(rows, from + chunk - 1)));
    if (rows > chunk) console.log(`  ${d}: ${Math.min(rows, from + chunk - 1)} rows`);
  }
  await restore();
  await index.up(knex);
  // VACUUM on PostgreSQL as autovacuum would soon after the load (and not in the middle of a
  // timing): the visibility map lets counts and the deferred join read the indexes only.
  await knex.raw(
    d === 'postgres'
      ? 'VACUUM ANALYZE products'
      : d === 'mysql'
        ? 'ANALYZE TABLE products'
        : 'ANALYZE',
  );
  await knex.schema.createTable('bench_limits_meta', (t) => t.integer('rows'));
  await knex('bench_limits_meta').insert({ rows });
  console.log(
    `  generated ${rows} products on ${d} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** Drops the table's secondary (non-unique) indexes; the function returned makes them again. */
async function dropSecondaryIndexes(
  knex: Knex,
  d: Dialect,
  table: string,
): Promise<() => Promise<void>> {
  let statements: string[];
  if (d === 'postgres') {
    const found = rowsOf(
      await knex.raw(
        `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ? AND indexdef NOT LIKE 'CREATE UNIQUE%'`,
        [table],
      ),
    );
    for (const r of found) await knex.raw(`DROP INDEX "${String(r['indexname'])}"`);
    statements = found.map((r) => String(r['indexdef']));
  } else if (d === 'sqlite') {
    const found = rowsOf(
      await knex.raw(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'`,
        [table],
      ),
    );
    for (const r of found) await knex.raw(`DROP INDEX "${String(r['name'])}"`);
    statements = found.map((r) => String(r['sql']));
  } else {
    const found = rowsOf(
      await knex.raw(
        `SELECT index_name AS name, column_name AS col, sub_part AS part FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND non_unique = 1 ORDER BY index_name, seq_in_index`,
        [table],
      ),
    );
    const byName = new Map<string, string[]>();
    for (const r of found) {
      const name = String(r['name']);
      const part = r['part'] == null ? '' : `(${String(r['part'])})`;
      byName.set(name, [...(byName.get(name) ?? []), `\`${String(r['col'])}\`${part}`]);
    }
    for (const name of byName.keys()) await knex.raw(`ALTER TABLE ${table} DROP INDEX \`${name}\``);
    const adds = [...byName].map(([name, c]) => `ADD INDEX \`${name}\` (${c.join(', ')})`);
    statements = adds.length ? [`ALTER TABLE ${table} ${adds.join(', ')}`] : [];
  }
  return async () => {
    for (const statement of statements) await knex.raw(statement);
  };
}
