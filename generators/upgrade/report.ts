// The plan of an upgrade in words, for `--dry-run`: the files to add, update, merge cleanly or
// leave with conflicts, the migration with its SQL per database, and the data at risk.
import type { EntityModel } from '../model/types.js';
import { describeRisks } from './diff.js';
import type { FileOutcome } from './merge.js';
import { summarize } from './migration.js';
import type { FilePlan, SchemaPlan, UpgradeBase } from './plan.js';
import { FAMILIES, statements, type Family } from './sql.js';

const LABEL: Record<Family, string> = {
  sqlite: 'SQLite',
  postgres: 'PostgreSQL',
  mysql: 'MySQL / MariaDB',
};

const WORDS: Record<FileOutcome['kind'], string> = {
  add: 'add',
  update: 'update (you had not changed it)',
  merged: 'merge cleanly (your changes kept)',
  conflict: 'CONFLICT',
  remove: 'remove (no longer generated, unchanged)',
  keep: 'keep as it is',
  unchanged: 'unchanged',
};

const indent = (lines: readonly string[], by = '    ') => lines.map((l) => `${by}${l}`);

/** The plan as text. */
export async function describePlan(input: {
  model: EntityModel;
  base: UpgradeBase;
  plan: SchemaPlan;
  files: readonly FilePlan[];
  alterName: string;
  dryRun: boolean;
  /** The base copy's files the run renews (.slicekit/). */
  baseCopy?: readonly string[];
}): Promise<string> {
  const { model, base, plan, files } = input;
  const out: string[] = [
    `Upgrade of ${model.name.pascal} (src/slices/${model.folder})${input.dryRun ? ', dry run: nothing is written' : ''}.`,
  ];
  if (base.note) out.push(base.note);
  out.push('Files:');
  const changed = files.filter((f) => f.outcome.kind !== 'unchanged');
  for (const { path, outcome } of changed) {
    const why = 'reason' in outcome ? ` (${outcome.reason})` : '';
    out.push(`  ${WORDS[outcome.kind].padEnd(12)} ${path}${why}`);
  }
  out.push(`  ${files.length - changed.length} file(s) unchanged`);
  for (const path of input.baseCopy ?? []) out.push(`  ${'base copy'.padEnd(12)} ${path}`);
  if (plan.changes.length === 0) {
    out.push(`Migration: none, the ${model.table} table is unchanged.`);
  } else {
    out.push(
      `Migration migrations/${input.alterName}.ts:`,
      ...indent(summarize(plan.changes), '  '),
    );
    for (const family of FAMILIES) {
      out.push(
        `  ${LABEL[family]}, up:`,
        ...indent(await statements(plan.steps.up, plan.before, family)),
      );
    }
  }
  if (plan.risks.length) {
    out.push(
      'Data at risk (the upgrade is refused without --accept-data-loss):',
      ...indent(describeRisks(plan.risks), '  - '),
    );
  }
  const conflicts = changed.filter(
    (f) => f.outcome.kind === 'conflict' || (f.outcome.kind === 'keep' && f.outcome.conflict),
  );
  if (conflicts.length) {
    out.push(`${conflicts.length} file(s) would need resolving by hand.`);
  }
  return out.join('\n');
}
