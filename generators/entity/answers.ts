// What the entity generator's actions accept (prompt answers, bypass arguments or a program's
// object) and the resolved model they describe, from a spec file or from the answers themselves.
import { isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';
import { resolveAnswers, specFromAnswers, type CompactAnswers } from '../model/compact.js';
import { EntitySpecError } from '../model/errors.js';
import { loadSpecFile } from '../model/load.js';
import { savedSpecHeader } from '../model/app.js';
import type { EntityModel } from '../model/types.js';

/** What the generator's actions accept (prompt answers, bypass arguments or a program's object). */
export interface EntityAnswers extends CompactAnswers {
  /** Path of a YAML or JSON spec file (the `--spec` argument), relative to the working folder. */
  spec?: string;
  /** The same, for programs: `runActions({ specFile })`. */
  specFile?: string;
  /** Overwrite files that exist. @default false */
  force?: boolean | string;
  /** Time stamp of a new migration (tests pin it). @default now */
  now?: Date | string;
  /** Print every file the run would write (new slices, upgrades, app-wide files), and write nothing (`--dry-run`). */
  dryRun?: boolean | string;
  'dry-run'?: boolean | string;
  /** Write an upgrade that may lose or refuse data (`--accept-data-loss`). @default false */
  acceptDataLoss?: boolean | string;
  'accept-data-loss'?: boolean | string;
  /** The spec an app without base copies was generated from (`--base <file>`). */
  base?: string;
  /**
   * The tenant the rows of a table take when an upgrade adds `tenant: true` to its entity
   * (`--default-tenant <id>`); without it such an upgrade is refused (its rows would belong to none).
   */
  defaultTenant?: string;
  'default-tenant'?: string;
}

export const COMPACT_KEYS = [
  'name',
  'fields',
  'create',
  'updates',
  'actions',
  'dto',
  'events',
  'idempotent',
  'plural',
  'table',
  'resource',
] as const;

/** The resolved model and the spec text to save, from whichever way the answers came. */
export function modelFromAnswers(answers: EntityAnswers): { model: EntityModel; specText: string } {
  const file = answers.specFile || answers.spec;
  if (file) {
    const extra = COMPACT_KEYS.filter((k) => typeof answers[k] === 'string' && answers[k] !== '');
    if (extra.length > 0) {
      throw new EntitySpecError('the arguments', [
        {
          path: extra.map((k) => `--${k}`).join(', '),
          message: 'given with --spec',
          fix: 'describe the entity in the spec file or by arguments, not both',
        },
      ]);
    }
    const path = isAbsolute(file) ? file : resolve(process.cwd(), file);
    const { model, text } = loadSpecFile(path);
    return { model, specText: text };
  }
  const model = resolveAnswers(answers, 'the spec from the answers');
  const spec = specFromAnswers(answers, 'the spec from the answers');
  return { model, specText: savedSpecHeader(model) + YAML.stringify(spec) };
}
