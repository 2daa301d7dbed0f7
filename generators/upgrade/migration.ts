// The ALTER migration of an upgrade: its name, its view (the steps of steps.ts with what the
// template needs to write them) and its text, rendered by templates/upgrade/ and formatted.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodePlopAPI } from 'plop';
import type { EntityModel } from '../model/types.js';
import { formatFile } from '../entity/format.js';
import { migrationStamp } from '../entity/actions.js';
import type { SchemaChange } from './changes.js';
import { checkSql, rebuildTable } from './sql.js';
import {
  indexLabel,
  liveLabel,
  uniqueTextIndex,
  type Line,
  type MigrationSteps,
  type Step,
} from './steps.js';

export const UPGRADE_TEMPLATES = fileURLToPath(
  new URL('../../templates/upgrade/', import.meta.url),
);
const TEMPLATE = join(UPGRADE_TEMPLATES, 'migrations', '__migrationName__.ts.hbs');

/** `20250102030405_alter_products`. */
export function alterMigrationName(now: Date, table: string): string {
  return `${migrationStamp(now)}_alter_${table}`;
}

/** Registers templates/upgrade/partials/<name>.hbs as `upgrade/<name>`, once per plop instance. */
export function registerUpgradePartials(plop: NodePlopAPI): void {
  const known = new Set(plop.getPartialList());
  const dir = join(UPGRADE_TEMPLATES, 'partials');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.hbs'))) {
    const name = `upgrade/${file.slice(0, -'.hbs'.length)}`;
    if (!known.has(name)) plop.setPartial(name, readFileSync(join(dir, file), 'utf8'));
  }
}

/** One line per change, for the migration's header and the plan. */
export function summarize(changes: readonly SchemaChange[]): string[] {
  return changes.map((c) => {
    switch (c.kind) {
      case 'add':
        return `+ ${c.column.name}`;
      case 'drop':
        return `- ${c.column.name}`;
      case 'rename':
        return `${c.from} -> ${c.to} (renamed)`;
      case 'alter':
        return `~ ${c.after.name}`;
      case 'addIndex':
        return `+ ${indexLabel(c.index)}`;
      case 'dropIndex':
        return `- ${indexLabel(c.index)}`;
      case 'addSequence':
        return `+ sequence ${String(c.sequence.options['name'])}`;
      case 'dropSequence':
        return `- sequence ${String(c.sequence.options['name'])}`;
      case 'addForeign':
        return `+ foreign key (${c.foreignKey.column}) -> ${c.foreignKey.table}`;
      case 'dropForeign':
        return `- foreign key (${c.foreignKey.column}) -> ${c.foreignKey.table}`;
      case 'addJoinTable':
        return `+ join table ${c.joinTable.table}`;
      case 'dropJoinTable':
        return `- join table ${c.joinTable.table}`;
      case 'addSearch':
        return `+ search index (${c.search.columns.join(', ')})`;
      case 'dropSearch':
        return `- search index (${c.search.columns.join(', ')})`;
      case 'addLiveUnique':
        return `+ unique among live rows (${c.unique.columns.join(', ')})`;
      case 'dropLiveUnique':
        return `- unique among live rows (${c.unique.columns.join(', ')})`;
      case 'addLiveIndex':
        return `+ index over live rows ${liveLabel(c.live)}`;
      case 'dropLiveIndex':
        return `- index over live rows ${liveLabel(c.live)}`;
    }
  });
}

function lineView(line: Line): object {
  if ('dropIndex' in line) {
    const drop = line.dropIndex.method === 'unique' ? 'dropUnique' : 'dropIndex';
    return { dropIndex: { ...line.dropIndex, drop } };
  }
  return line;
}

function stepView(step: Step): object {
  if ('alterTable' in step) {
    return { alterTable: { ...step.alterTable, lines: step.alterTable.lines.map(lineView) } };
  }
  if ('enumChange' in step) {
    const change = step.enumChange;
    return {
      enumChange: {
        ...change,
        checkSql: checkSql(change.values),
        rebuildTable: rebuildTable(change.table),
        columnNames: change.rebuild.columns.map((c) => c.name),
        // The indexes Knex makes, and the text ones the runtime makes.
        plainIndexes: change.rebuild.indexes.filter((i) => !i.text),
        uniqueTexts: change.rebuild.indexes.flatMap((i) => uniqueTextIndex(change.table, i) ?? []),
      },
    };
  }
  if ('uniqueIndex' in step) {
    const { up, ...index } = step.uniqueIndex;
    return { uniqueIndex: { index, up } };
  }
  if ('liveIndex' in step) {
    const { up, table, ...index } = step.liveIndex;
    return { liveIndex: { table, index, up } };
  }
  return step;
}

/** Whether the steps branch on PostgreSQL (enum check constraints). */
const onPostgres = (steps: readonly Step[]) =>
  steps.some((s) => 'enumChange' in s || 'renameCheck' in s);

/** Whether `steps` add, alter or rebuild a column compared exactly (`exactText`). */
const usesExact = (steps: readonly unknown[]): boolean =>
  JSON.stringify(steps).includes('"exact":true');

export function alterMigrationView(
  model: EntityModel,
  changes: readonly SchemaChange[],
  steps: MigrationSteps,
) {
  const all = [...steps.up, ...steps.down];
  const imports = [
    ...(all.some((s) => 'sequence' in s || 'number' in s) ? ['defineSequence'] : []),
    ...(all.some((s) => 'number' in s && s.number.integer) ? ['nextNumber'] : []),
    ...(all.some((s) => 'number' in s && !s.number.integer) ? ['nextValue'] : []),
    ...(all.some((s) => 'sequence' in s) ? ['sequenceMigration'] : []),
  ];
  return {
    table: model.table,
    entity: model.name.pascal,
    folder: model.folder,
    summary: summarize(changes),
    sequenceImports: imports.join(', '),
    databaseImports: [
      // A column compared exactly (a tenant) keeps its binary collation when added or altered.
      ...(usesExact(all) ? ['exactText'] : []),
      ...(all.some((s) => 'liveIndex' in s) ? ['liveIndexMigration'] : []),
      ...(all.some((s) => 'liveUnique' in s) ? ['liveUniqueMigration'] : []),
      ...(all.some((s) => 'searchIndex' in s) ? ['searchIndexMigration'] : []),
      ...(all.some(
        (s) =>
          'uniqueIndex' in s ||
          ('enumChange' in s && s.enumChange.rebuild.indexes.some((i) => i.text)),
      )
        ? ['uniqueIndexMigration']
        : []),
    ].join(', '),
    upExact: usesExact(steps.up),
    downExact: usesExact(steps.down),
    upPostgres: onPostgres(steps.up),
    downPostgres: onPostgres(steps.down),
    up: steps.up.map(stepView),
    down: steps.down.map(stepView),
  };
}

/** The text of the ALTER migration, formatted as the file at `file`. */
export async function renderAlterMigration(
  plop: NodePlopAPI,
  view: ReturnType<typeof alterMigrationView>,
  file: string,
): Promise<string> {
  registerUpgradePartials(plop);
  return formatFile(plop.renderString(readFileSync(TEMPLATE, 'utf8'), view), file);
}
