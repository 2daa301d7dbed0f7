// Each answer of `npx plop entity` is checked as it is typed (inquirer's `validate`), against the
// answers before it: a mistake is refused at its prompt, with the fix, instead of after the last
// prompt with every answer lost. The same checks as a spec file's run (../model/resolve.ts).
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { resolveAnswers, type CompactAnswers } from '../model/compact.js';
import { EntitySpecError, type SpecProblem } from '../model/errors.js';
import { loadSpecFile } from '../model/load.js';
import type { EntityModel } from '../model/types.js';
import { planEntities } from './batch.js';

/** The prompts describing the entity, each with the spec keys (and argument paths) it answers. */
const ANSWERED = {
  name: ['entity'],
  fields: ['fields', '--fields'],
  create: ['create', '--create'],
  updates: ['updates', '--updates'],
  actions: ['actions', '--actions'],
  dto: ['dto', '--dto'],
  events: ['events', '--events'],
  idempotent: ['idempotent', '--idempotent'],
  plural: ['plural'],
  table: ['table'],
  resource: ['resource'],
} as const;

export type CheckedPrompt = keyof typeof ANSWERED;

const SOURCE = 'the answers';

const under = (path: string, key: string) =>
  path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`);

/** The problems as a prompt shows them: one per line, each with its fix. */
export function promptMessage(problems: readonly SpecProblem[]): string {
  const line = (p: SpecProblem) => `${p.path ? `${p.path}: ` : ''}${p.message}. Fix: ${p.fix}`;
  return problems.length === 1
    ? line(problems[0]!)
    : problems.map((p) => `\n  - ${line(p)}`).join('');
}

/**
 * `true`, or what is wrong with the answer `value` to prompt `key`, given the answers before it.
 * Prompts not reached yet take their defaults; the DTO, asked before the audit and owner
 * questions, may name their fields.
 *
 * @example
 * checkAnswer('fields', 'email:strng!', { name: 'Customer' });
 * // 'fields.email.type: "strng" is not allowed. Fix: did you mean string? use one of string, ...'
 */
export function checkAnswer(
  key: CheckedPrompt,
  value: unknown,
  answers: CompactAnswers = {},
  appDir: string = process.cwd(),
): true | string {
  const given: CompactAnswers = { ...answers, [key]: typeof value === 'string' ? value : '' };
  if (key === 'dto') {
    given.audited ??= true;
    given.owned ??= true;
  }
  const mine = (error: EntitySpecError): true | string => {
    // Problems of answers not given yet (no fields at the name prompt) are for their prompts.
    const problems = error.problems.filter((p) => ANSWERED[key].some((k) => under(p.path, k)));
    return problems.length === 0 ? true : promptMessage(problems);
  };
  let model: EntityModel;
  try {
    model = resolveAnswers(given, SOURCE);
  } catch (error) {
    if (error instanceof EntitySpecError) return mine(error);
    throw error;
  }
  try {
    // Then against the entities of the app: references, tables and URL segments.
    planEntities(appDir, [{ model, specText: '', source: SOURCE }]);
  } catch (error) {
    // Trouble of the app's own slices is for the run to report, never a reason to refuse.
    if (error instanceof EntitySpecError && error.source === SOURCE) return mine(error);
  }
  return true;
}

/**
 * `true` for an empty answer (the entity is described by the next prompts), or a spec file, folder
 * or list that exists and whose specs are sound; else every problem of the file at once.
 */
export function checkSpecAnswer(value: unknown, cwd: string = process.cwd()): true | string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) return true;
  for (const item of text.split(',').map((s) => s.trim())) {
    const path = isAbsolute(item) ? item : resolve(cwd, item);
    if (!existsSync(path)) {
      return `${item} does not exist. Fix: give the path of a YAML or JSON spec file (or a folder of them), relative to ${cwd}`;
    }
    if (statSync(path).isDirectory()) continue;
    try {
      loadSpecFile(path);
    } catch (error) {
      if (!(error instanceof EntitySpecError)) throw error;
      return `${item} has ${error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`}: ${promptMessage(error.problems)}`;
    }
  }
  return true;
}
