// The SQL an ALTER migration runs on each database, for `--dry-run`: the same steps the
// migration file is written from, compiled by Knex. PostgreSQL and MySQL compile without a server
// (`toString()` of each builder); SQLite rebuilds a table for some changes and Knex reads the
// table to do it, so its statements come from running the steps on an in-memory copy of the
// table as the base copy describes it. Knex and the runtime's dialects are loaded only then: a
// run that upgrades nothing does not pay for them.
import type { Knex } from 'knex';
import type { Dialect } from '@slicekit/runtime/database';
import type { ForeignKey, JoinTable } from '../entity/views/foreign-keys.js';
import type { Column } from '../entity/views/migration.js';
import type { FullSnapshot } from './base.js';
import { uniqueTextIndex, type Line, type Step } from './steps.js';

export type Family = 'sqlite' | 'postgres' | 'mysql';
export const FAMILIES: readonly Family[] = ['sqlite', 'postgres', 'mysql'];

function column(table: Knex.AlterTableBuilder | Knex.CreateTableBuilder, c: Column) {
  const call = (table as unknown as Record<string, (...a: unknown[]) => Knex.ColumnBuilder>)[
    c.method
  ]!;
  let builder = call.call(table, c.name, ...c.args);
  if (c.primary) return builder.primary();
  builder = c.notNullable ? builder.notNullable() : builder.nullable();
  if (c.hasDefault) builder = builder.defaultTo(c.defaultTo as Knex.Value);
  return builder;
}

function foreign(table: Knex.CreateTableBuilder | Knex.AlterTableBuilder, key: ForeignKey): void {
  table.foreign(key.column).references('id').inTable(key.table).onDelete(key.onDelete);
}

function joinTable(knex: Knex, join: JoinTable): Knex.SchemaBuilder {
  return knex.schema.createTable(join.table, (t) => {
    for (const c of join.columns) t.uuid(c).notNullable();
    t.primary(join.columns);
    join.foreignKeys.forEach((k) => foreign(t, k));
    t.index([join.index]);
  });
}

function applyLine(table: Knex.AlterTableBuilder, line: Line): void {
  if ('add' in line) column(table, line.add);
  else if ('foreign' in line) foreign(table, line.foreign);
  else if ('dropForeign' in line) table.dropForeign([line.dropForeign.column]);
  else if ('alter' in line) {
    column(table, line.alter).alter();
  } else if ('drop' in line) table.dropColumn(line.drop);
  else if ('rename' in line) table.renameColumn(line.rename.from, line.rename.to);
  else if ('index' in line) table[line.index.method](line.index.columns);
  else if (line.dropIndex.method === 'unique') table.dropUnique(line.dropIndex.columns);
  else table.dropIndex(line.dropIndex.columns);
}

/** The table an enum change on SQLite rebuilds into. */
export const rebuildTable = (table: string) => `_${table}_rebuild`;

/** `alter table ?? add constraint ?? check (?? in ('draft', 'live'))`: table, name, column. */
export const checkSql = (values: readonly string[]) =>
  `alter table ?? add constraint ?? check (?? in (${values
    .map((v) => `'${v.replace(/'/g, "''")}'`)
    .join(', ')}))`;

/** A step as Knex builders (or a note, for what only runs against data). */
function builders(
  knex: Knex,
  step: Step,
  dialect: Dialect,
): (Knex.SchemaBuilder | Knex.Raw | Knex.QueryBuilder | string)[] {
  const { schema } = dialect;
  if ('alterTable' in step) {
    const { table, lines } = step.alterTable;
    return [knex.schema.alterTable(table, (t) => lines.forEach((l) => applyLine(t, l)))];
  }
  if ('fill' in step) {
    const { table, column: c, value, values } = step.fill;
    const rows = values ? knex(table).whereIn(c, values) : knex(table).whereNull(c);
    return [rows.update({ [c]: value as Knex.Value })];
  }
  if ('cut' in step) {
    const { table, column: c, length } = step.cut;
    return [
      knex(table)
        .whereNotNull(c)
        .update({ [c]: knex.raw(`substr(??, 1, ${length})`, [c]) }),
    ];
  }
  if ('enumChange' in step) {
    const { table, column: c, constraint, values, rebuild } = step.enumChange;
    if (schema.rebuildsToChangeEnum) {
      const names = rebuild.columns.map((r) => r.name);
      const plain = rebuild.indexes.filter((i) => !i.text);
      const temp = rebuildTable(table);
      return [
        knex.schema.createTable(temp, (t) => {
          rebuild.columns.forEach((r) => column(t, r));
          rebuild.foreignKeys.forEach((k) => foreign(t, k));
        }),
        knex.raw('insert into ?? (??) select ?? from ??', [temp, names, names, table]),
        knex.schema.dropTable(table),
        knex.schema.renameTable(temp, table) as unknown as Knex.SchemaBuilder,
        ...(plain.length
          ? [knex.schema.alterTable(table, (t) => plain.forEach((i) => t[i.method](i.columns)))]
          : []),
        ...rebuild.indexes.flatMap((i) => {
          const unique = uniqueTextIndex(table, i);
          return unique
            ? [dialect.uniqueText.describe(table, unique.column, !!unique.ignoreCase)]
            : [];
        }),
      ];
    }
    const altered = knex.schema.alterTable(table, (t) => {
      column(t, c).alter(schema.enumIsCheckConstraint ? { alterType: false } : {});
    });
    if (!schema.enumIsCheckConstraint) return [altered];
    return [
      altered,
      knex.raw('alter table ?? drop constraint if exists ??', [table, constraint]),
      knex.raw(checkSql(values), [table, constraint, c.name]),
    ];
  }
  if ('renameCheck' in step) {
    if (!schema.enumIsCheckConstraint) return [];
    const { table, from, to } = step.renameCheck;
    return [knex.raw('alter table ?? rename constraint ?? to ??', [table, from, to])];
  }
  if ('createJoinTable' in step) return [joinTable(knex, step.createJoinTable)];
  if ('dropTable' in step) return [knex.schema.dropTable(step.dropTable)];
  if ('sequence' in step) {
    const verb = step.sequence.up ? 'created' : 'dropped';
    return [
      `-- sequence ${String(step.sequence.options['name'])} ${verb} (@slicekit/runtime/sequences)`,
    ];
  }
  if ('searchIndex' in step) {
    const { table, columns, up } = step.searchIndex;
    if (!dialect.searchIndex.supported) return [];
    return [
      `-- search index ${dialect.searchIndex.name(table)} ${up ? `created over (${columns.join(', ')})` : 'dropped'} (@slicekit/runtime/database searchIndexMigration)`,
    ];
  }
  if ('uniqueIndex' in step) {
    const { table, column: c, ignoreCase = false, up } = step.uniqueIndex;
    return [
      up
        ? dialect.uniqueText.describe(table, c, ignoreCase)
        : `-- unique index of ${table}.${c}${ignoreCase ? ' ignoring case' : ''} dropped (@slicekit/runtime/database uniqueIndexMigration)`,
    ];
  }
  if ('liveUnique' in step) {
    const { columns, up } = step.liveUnique;
    return [
      `-- unique index over live rows (${columns.join(', ')}) ${up ? 'created' : 'dropped'} (@slicekit/runtime/database liveUniqueMigration)`,
    ];
  }
  if ('liveIndex' in step) {
    const { scope, columns, up } = step.liveIndex;
    return [
      `-- index over live rows (${[...scope, ...columns].join(', ')}) ${up ? 'created' : 'dropped'} (@slicekit/runtime/database liveIndexMigration)`,
    ];
  }
  if ('number' in step) {
    return [
      `-- each row of ${step.number.table} without ${step.number.column} numbered by its sequence`,
    ];
  }
  return [`-- ${step.comment}`];
}

const text = (b: Knex.SchemaBuilder | Knex.Raw | Knex.QueryBuilder | string): string[] => {
  if (typeof b === 'string') return [b];
  return b
    .toString()
    .split(/;\n/)
    .map((s) =>
      /^show full fields/.test(s)
        ? `${s}; -- then Knex renames the column with "alter table ... change", keeping its definition`
        : `${s};`,
    );
};

/** Knex's factory, loaded on first use. */
const knexFactory = async () => (await import('knex')).default;

async function statementsRun(
  steps: readonly Step[],
  before: FullSnapshot,
  dialect: Dialect,
): Promise<string[]> {
  let knex: Knex;
  try {
    await import(dialect.client);
    knex = (await knexFactory())({
      client: dialect.client,
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
  } catch {
    return [`-- install ${dialect.client} to see the ${dialect.label} statements`];
  }
  try {
    await knex.schema.createTable(before.table, (t) => {
      before.columns.forEach((c) => column(t, c));
      before.indexes.forEach((i) => t[i.method](i.columns));
      before.foreignKeys.forEach((k) => foreign(t, k));
    });
    for (const join of before.joinTables) await joinTable(knex, join);
    const out: string[] = [];
    // Knex's reads of the table (pragma, select) are how it rebuilds it, and the transactions it
    // wraps them in are its own: neither is part of the change.
    const record = (q: { sql: string }) => {
      const sql = q.sql.trim().replace(/;$/, '');
      if (!/^(pragma|select|begin|commit|rollback|savepoint|release)\b/i.test(sql)) {
        out.push(`${sql};`);
      }
    };
    knex.on('query', record);
    for (const step of steps) {
      for (const b of builders(knex, step, dialect)) {
        if (typeof b === 'string') out.push(b);
        else await b;
      }
    }
    return out;
  } finally {
    await knex.destroy();
  }
}

/**
 * The statements `steps` run on `family`.
 *
 * @example
 * await statements(steps.up, base.schema, 'postgres'); // ['alter table "products" add column ...']
 */
export async function statements(
  steps: readonly Step[],
  before: FullSnapshot,
  family: Family,
): Promise<string[]> {
  const { dialectNamed } = await import('@slicekit/runtime/database');
  const dialect = dialectNamed(family);
  if (dialect.schema.readsTableToAlter) return statementsRun(steps, before, dialect);
  const knex = (await knexFactory())({ client: dialect.client });
  try {
    return steps.flatMap((step) => builders(knex, step, dialect).flatMap(text));
  } finally {
    await knex.destroy();
  }
}
