// The one-line forms the prompts and plop bypass arguments take, turned into a spec object that
// then goes through the same checks as a spec file. docs/entity-spec.md shows each form.
import { didYouMean, EntitySpecError, type SpecProblem } from './errors.js';
import { parseTyped, scalar, splitTop } from './compact-fields.js';
import { resolveSpec } from './resolve.js';
import type {
  ActionSpec,
  EffectSpec,
  EntityModel,
  EntitySpec,
  EventSpec,
  FieldSpec,
  MethodSpec,
  ParamSpec,
} from './types.js';

export { parseTyped, splitTop } from './compact-fields.js';

/** The answers of the entity generator's prompts (or `--name`, `--fields`... arguments). */
export interface CompactAnswers {
  name?: string;
  fields?: string;
  create?: string;
  updates?: string;
  actions?: string;
  dto?: string;
  audited?: boolean | string;
  owned?: boolean | string;
  events?: string;
  idempotent?: string;
  /** PascalCase plural; empty: the English plural of the name. */
  plural?: string;
  /** Table name; empty: the snake_case plural. */
  table?: string;
  /** URL segment of the routes (`/v1/<resource>`); empty: the kebab-case plural. */
  resource?: string;
  /** Request validation with ajv; false opts the slice out. @default true */
  validate?: boolean | string;
}

function params(text: string, at: string, problems: SpecProblem[]): ParamSpec[] {
  return splitTop(text).map((item, i) => {
    const { name, spec } = parseTyped(item, `${at}[${i}]`, problems);
    return Object.keys(spec).length === 0 ? name : ({ name, ...spec } as ParamSpec);
  });
}

/** `Name(params)` plus what follows it (`@segment`, `:VERB`, `[effects]`). */
function method(
  text: string,
  at: string,
  problems: SpecProblem[],
): (ActionSpec & { rest: string }) | undefined {
  const match = /^([A-Za-z][A-Za-z0-9]*)\s*(?:\((.*?)\))?(.*)$/.exec(text);
  if (!match) {
    problems.push({
      path: at,
      message: `"${text}" is not a method`,
      fix: 'write Name(param, ...), e.g. ChangePrice(price)',
    });
    return undefined;
  }
  const [, name = '', list = '', rest = ''] = match;
  return {
    name,
    ...(list.trim() ? { parameters: params(list, `${at}.parameters`, problems) } : {}),
    rest: rest.trim(),
  };
}

function effects(text: string, parameters: readonly ParamSpec[]): EffectSpec[] {
  const names = parameters.map((p) => (typeof p === 'string' ? p : p.name));
  return splitTop(text, ';')
    .flatMap((item) => splitTop(item, ','))
    .map((item) => {
      const [set = '', ...rest] = item.split('=');
      const right = rest.join('=').trim();
      if (right === 'now') return { set: set.trim(), now: true };
      if (names.includes(right)) return { set: set.trim(), from: right };
      return { set: set.trim(), value: scalar(right) };
    });
}

function actionOf(text: string, at: string, problems: SpecProblem[]): ActionSpec | undefined {
  const parsed = method(text, at, problems);
  if (!parsed) return undefined;
  const { rest, ...action } = parsed;
  // The verb is checked with the rest of the spec, so a misspelled one gets a "did you mean".
  const match = /^(?:@([a-z0-9-]+))?\s*(?::\s*([A-Za-z]+))?\s*(?:\[(.*)\])?$/i.exec(rest);
  if (!match) {
    problems.push({
      path: at,
      message: `"${rest}" is not understood`,
      fix: 'write Name(params)@segment:VERB[field=value], each part optional',
    });
    return action;
  }
  const [, segment, verb, effectText] = match;
  return {
    ...action,
    ...(segment ? { segment } : {}),
    ...(verb ? { verb: verb.toUpperCase() as ActionSpec['verb'] } : {}),
    ...(effectText ? { effects: effects(effectText, action.parameters ?? []) } : {}),
  };
}

const yes = (v: boolean | string | undefined, fallback: boolean): boolean =>
  v === undefined || v === '' ? fallback : v === true || /^(y|yes|true|t)$/i.test(String(v));

/** Builds a spec from compact answers; throws EntitySpecError naming the answer at fault. */
export function specFromAnswers(answers: CompactAnswers, source = 'the answers'): EntitySpec {
  const { spec, problems } = parseAnswers(answers);
  if (problems.length > 0) throw new EntitySpecError(source, problems);
  return spec;
}

/**
 * Checks and resolves compact answers. Problems of form (`--fields[0]: "strng!(" is not a type`)
 * and problems of meaning of the other answers come in one report.
 *
 * @example
 * const model = resolveAnswers({ name: 'Customer', fields: 'email:string!' }, 'the answers');
 */
export function resolveAnswers(answers: CompactAnswers, source: string): EntityModel {
  const { spec, problems } = parseAnswers(answers);
  if (problems.length === 0) return resolveSpec(spec, source);
  // The meaning of an answer whose form is wrong (a field, or a whole other answer) is not
  // checked: it would echo the problem.
  const fieldNames = splitTop(answers.fields ?? '').map((item) => item.split(':')[0]!.trim());
  const broken = problems.map((p) => {
    const [, key = '', index] = /^--([a-z]+)(?:\[(\d+)\])?/.exec(p.path) ?? [];
    return key === 'fields' && index !== undefined ? `fields.${fieldNames[Number(index)]}` : key;
  });
  if (broken.includes('updates') || broken.includes('actions')) broken.push('idempotent');
  const echoes = (path: string) =>
    broken.some((b) => path === b || path.startsWith(`${b}.`) || path.startsWith(`${b}[`));
  let meaning: readonly SpecProblem[] = [];
  try {
    resolveSpec(spec, source);
  } catch (error) {
    if (!(error instanceof EntitySpecError)) throw error;
    meaning = error.problems.filter((p) => !echoes(p.path));
  }
  throw new EntitySpecError(source, [...problems, ...meaning]);
}

/** The spec compact answers describe, as far as their form allows, and the problems of form. */
export function parseAnswers(answers: CompactAnswers): {
  spec: EntitySpec;
  problems: SpecProblem[];
} {
  const problems: SpecProblem[] = [];
  const fields: Record<string, FieldSpec> = {};
  splitTop(answers.fields ?? '').forEach((item, i) => {
    const { name, spec } = parseTyped(item, `--fields[${i}]`, problems);
    fields[name] = { type: 'string', ...spec } as FieldSpec;
  });
  const updates: MethodSpec[] = splitTop(answers.updates ?? '').flatMap((item, i) => {
    const parsed = method(item, `--updates[${i}]`, problems);
    if (!parsed) return [];
    const { rest, ...update } = parsed;
    const effectMatch = /^\[(.*)\]$/.exec(rest);
    if (rest && !effectMatch)
      problems.push({
        path: `--updates[${i}]`,
        message: `"${rest}" is not understood`,
        fix: 'write Name(params) or Name(params)[field=param]',
      });
    return [
      {
        ...update,
        ...(effectMatch ? { effects: effects(effectMatch[1] ?? '', update.parameters ?? []) } : {}),
      },
    ];
  });
  const actions = splitTop(answers.actions ?? '').flatMap(
    (item, i) => actionOf(item, `--actions[${i}]`, problems) ?? [],
  );
  const dtoNames = splitTop(answers.dto ?? '');
  const excluded = dtoNames.filter((n) => n.startsWith('-')).map((n) => n.slice(1).trim());
  const included = dtoNames.filter((n) => !n.startsWith('-'));
  if (excluded.length && included.length)
    problems.push({
      path: '--dto',
      message: 'mixes included and -excluded names',
      fix: 'list only names to keep, or only -names to drop',
    });
  const events: EventSpec[] = splitTop(answers.events ?? '').flatMap((item, i) => {
    const match = /^(Created|Updated)\s*\((.*)\)$/.exec(item);
    if (!match) {
      const operation = /^\s*([A-Za-z]+)\s*\(/.exec(item)?.[1] ?? '';
      problems.push({
        path: `--events[${i}]`,
        message: `"${item}" is not an event`,
        fix: `${didYouMean(operation, ['Created', 'Updated'])}write Created(id, name) or Updated(price)`,
      });
      return [];
    }
    return [{ operation: match[1] as EventSpec['operation'], fields: splitTop(match[2] ?? '') }];
  });
  const idempotent = splitTop(answers.idempotent ?? '');
  const create = answers.create?.trim() ? splitTop(answers.create) : undefined;
  const named = (['plural', 'table', 'resource'] as const).flatMap((key) => {
    const value = answers[key]?.trim();
    return value ? [[key, value] as const] : [];
  });
  const spec: EntitySpec = {
    entity: (answers.name ?? '').trim(),
    // Checked with the rest of the spec, like the same keys of a spec file.
    ...Object.fromEntries(named),
    audited: yes(answers.audited, true),
    owned: yes(answers.owned, false),
    ...(yes(answers.validate, true) ? {} : { validate: false }),
    fields,
    ...(create ? { create: create.map((n) => parseTyped(n, '--create', problems).name) } : {}),
    ...(updates.length ? { updates } : {}),
    ...(actions.length ? { actions } : {}),
    ...(excluded.length
      ? { dto: { exclude: excluded } }
      : included.length
        ? { dto: { include: included } }
        : {}),
    ...(events.length ? { events } : {}),
    // Checked with the rest of the spec: each must be a mutating CrudOp.
    ...(idempotent.length ? { idempotent: idempotent as EntitySpec['idempotent'] } : {}),
  };
  return { spec, problems };
}
