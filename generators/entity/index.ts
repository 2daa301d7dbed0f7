// The `entity` Plop generator: a full vertical slice per entity, from a spec file, from one-line
// answers to its prompts, or from the same answers as bypass arguments. docs/entity-spec.md.
//
//   npx plop entity                                   (prompts)
//   npx plop entity -- --spec product.yaml [--force]  (a spec file)
//   npx plop entity -- --spec src/slices/products/product.entity.yaml [--dry-run]
//        [--accept-data-loss] [--base <earlier spec>] [--default-tenant <id>]
//        (upgrade a slice: docs/evolving-entities.md)
//   npx plop entity -- --name Customer --fields "email:string!,displayName:string"
//        [--plural Customers] [--table crm_customers] [--resource clients] [--validate false]
//   node-plop: getGenerator('entity').runActions({ specFile, force })
import { resolve } from 'node:path';
import type { NodePlopAPI } from 'plop';
import type { PromptQuestion } from 'node-plop';
import { entityActions, isKeptFilesReport } from './actions.js';
import { loadSpecs, planEntities, specFiles } from './batch.js';
import { appWidePlan, newSlicePlan } from './dry-run.js';
import { checkAnswer, checkSpecAnswer, type CheckedPrompt } from './prompt-checks.js';
import { writeRelationFiles } from './relation-files.js';
import { sliceBase } from './views/index.js';
import { hasRelations } from './views/relations.js';
import { sliceExists, upgradeActions } from '../upgrade/actions.js';
import { registerHelpers } from '../helpers.js';
import { kebabCase, pascalCase, pluralize, snakeCase } from '../names.js';
import { COMPACT_KEYS, modelFromAnswers, type EntityAnswers } from './answers.js';

export { modelFromAnswers, type EntityAnswers };

/** Answers named like a value of the templates' view. */
const VIEW_NAMED_KEYS = ['plural', 'table', 'resource', 'validate'] as const;

const truthy = (value: unknown): boolean =>
  value === true || (typeof value === 'string' && /^(y|yes|true|t)$/i.test(value));

/**
 * Whether plop was started with bypass arguments for this generator (`plop entity -- --spec x` or
 * `plop entity Product ...`). Plop would still ask every prompt not given on the command line;
 * a script wants the defaults instead, so then no prompt is asked.
 */
export function bypassing(argv: readonly string[] = process.argv.slice(2)): boolean {
  const at = argv.indexOf('entity');
  return at >= 0 && argv.length > at + 1;
}

// Prompt names double as bypass argument names (`--fields ...`), so they are part of the CLI.
function prompts(appDir: () => string): PromptQuestion[] {
  const questions = interactivePrompts(appDir);
  // `when: false` (not a function) keeps a prompt bypassable while never asking it.
  return bypassing() ? questions.map((q) => ({ ...q, when: false })) : questions;
}

function interactivePrompts(appDir: () => string): PromptQuestion[] {
  const input = (
    name: string,
    message: string | ((answers: EntityAnswers) => string),
    extra: Partial<PromptQuestion> = {},
  ): PromptQuestion => ({ type: 'input', name, message, ...extra }) as PromptQuestion;
  // Each answer is checked as it is typed, against the answers before it (prompt-checks.ts).
  const checked = (key: CheckedPrompt): Partial<PromptQuestion> => ({
    validate: (value: unknown, answers?: EntityAnswers) =>
      checkAnswer(key, value, answers, appDir()),
  });
  const pluralOf = (answers: EntityAnswers): string =>
    answers.plural?.trim() || pluralize(pascalCase(answers.name ?? '')) || 'the plural';
  return [
    input('spec', 'Spec file (YAML or JSON); leave empty to describe the entity here:', {
      // A spec file answers everything else: mark the other questions answered so they are skipped
      // (only once the file is sound: a refused answer is asked again, and may be left empty).
      filter: (value: string, answers: Record<string, unknown>) => {
        if (value.trim() && checkSpecAnswer(value) === true)
          for (const key of [...COMPACT_KEYS, 'audited', 'owned', 'validate']) answers[key] ??= '';
        return value.trim();
      },
      validate: (value: unknown) => checkSpecAnswer(value),
    }),
    input('name', 'Entity name, PascalCase and singular (Product):', checked('name')),
    input(
      'fields',
      'Fields, name:type[!][:constraint...] comma separated (name:string(150)!, price:decimal!:minimum=0.01, isDiscontinued:boolean:default=false):',
      checked('fields'),
    ),
    input(
      'create',
      'Constructor parameters (empty: every field without a default):',
      checked('create'),
    ),
    input('updates', 'Update methods (ChangePrice(price), Rename(name)):', checked('updates')),
    input(
      'actions',
      'Actions, Name(params)@segment:VERB[field=value] (Approve(byUser:string!)@approval[updatedBy=byUser], Discontinue():PUT[isDiscontinued=true]):',
      checked('actions'),
    ),
    input(
      'dto',
      'DTO: names to keep, or -names to drop (-ownedBy); empty keeps every stored field:',
      checked('dto'),
    ),
    {
      type: 'confirm',
      name: 'audited',
      message: 'Audited (createdBy/On, updatedBy/On)?',
      default: true,
    },
    {
      type: 'confirm',
      name: 'owned',
      message: 'Owned (ownedBy, stamped with the creator)?',
      default: false,
    },
    input('events', 'Events (Created(id, name), Updated(price)):', checked('events')),
    input(
      'idempotent',
      'Operations requiring an idempotency key (Create, Update, Delete, Action); empty for none:',
      checked('idempotent'),
    ),
    // Never asked; `--force` after `--` sets it, like plop's own --force before it.
    {
      type: 'confirm',
      name: 'force',
      message: 'Overwrite existing files?',
      default: false,
      when: false,
    },
    // After force, so the positional order of the questions above stays as it was.
    // (The upgrade's flags come last for the same reason.)
    input(
      'plural',
      (answers: EntityAnswers) => `Plural (empty: ${pluralOf(answers)}):`,
      checked('plural'),
    ),
    input(
      'table',
      (answers: EntityAnswers) => `Table name (empty: ${snakeCase(pluralOf(answers))}):`,
      checked('table'),
    ),
    input(
      'resource',
      (answers: EntityAnswers) =>
        `URL segment, /v1/<resource> (empty: ${kebabCase(pluralOf(answers))}):`,
      checked('resource'),
    ),
    {
      type: 'confirm',
      name: 'validate',
      message: 'Validate request bodies (400 listing each field error)?',
      default: true,
    },
    // Never asked: `--dry-run`, `--accept-data-loss`, `--base <file>` and `--default-tenant <id>`
    // of an upgrade (docs/evolving-entities.md).
    {
      type: 'confirm',
      name: 'dry-run',
      message: 'Only print the plan?',
      default: false,
      when: false,
    },
    {
      type: 'confirm',
      name: 'accept-data-loss',
      message: 'Write changes that may lose data?',
      default: false,
      when: false,
    },
    input('base', 'The spec the slice was generated from:', { when: false }),
    input('default-tenant', 'The tenant existing rows take:', { when: false }),
  ];
}

/**
 * Registers the `entity` generator (and slicekit's Handlebars helpers) on a plop instance. A
 * generated app's plopfile calls it; so does slicekit's own.
 *
 * @example
 * export default function (plop) { registerEntityGenerator(plop); }
 */
export function registerEntityGenerator(plop: NodePlopAPI): void {
  registerHelpers(plop);
  plop.setGenerator('entity', {
    description:
      'a vertical slice for one entity: migration, seed, entity, DTO, requests, handlers, routes, tests',
    prompts: prompts(() => plop.getDestBasePath()),
    actions: (data) => {
      const answers = (data ?? {}) as EntityAnswers;
      // One spec, or several (`--spec <folder>`, a list): each checked against the entities the
      // app holds already and against each other (relations included), then generated in
      // dependency order; app-wide files are written from all of them.
      const source = answers.specFile || answers.spec;
      const files = specFiles(source);
      // A broken spec is still checked against the app and the others, so one run reports every
      // mistake (planEntities throws them all).
      const { specs, failure } =
        files.length > 1 || (source && files[0] !== resolve(process.cwd(), source))
          ? loadSpecs(files, (file) => modelFromAnswers({ ...answers, specFile: file }))
          : loadSpecs([source || 'the spec from the answers'], () => modelFromAnswers(answers));
      const appDir = plop.getDestBasePath();
      const at = answers.now === undefined ? undefined : new Date(answers.now);
      const { app, planned } = planEntities(appDir, specs, at, failure);
      // node-plop renders templates with the answers over each action's data, and these answers
      // share their names with what the templates read (the resolved plural, table, resource and
      // validate): the model holds them now, so they go.
      for (const key of VIEW_NAMED_KEYS) delete (answers as Record<string, unknown>)[key];
      const dryRun = truthy(answers.dryRun ?? answers['dry-run']);
      const force = truthy(answers.force);
      const relations = app.entities.some(hasRelations);
      const actions = planned
        .flatMap(({ model, specText, now }) =>
          // A slice the app has already is upgraded: a migration with the difference, files merged.
          sliceExists(appDir, model)
            ? upgradeActions({
                plop,
                model,
                app,
                specText,
                appDir,
                force,
                dryRun,
                acceptDataLoss: truthy(answers.acceptDataLoss ?? answers['accept-data-loss']),
                ...(typeof answers.base === 'string' && answers.base
                  ? { baseSpec: answers.base }
                  : {}),
                ...defaultTenantOf(answers),
                // Stamped in the run's dependency order, after the migrations it depends on.
                now,
              })
            : dryRun
              ? [newSlicePlan({ plop, model, appDir, specText, force, now })]
              : entityActions({ model, app, specText, appDir, force, now, plop }),
        )
        .concat(
          // Each slice's relations follow the whole app: written from it after every run (a dry
          // run lists them, with the events index, instead).
          dryRun
            ? [
                appWidePlan(plop, app, {
                  events: planned.some(({ model }) => sliceBase(model).hasEvents),
                  relations,
                }),
              ]
            : relations
              ? [writeRelationFiles(plop, app)]
              : [],
        );
      // What each slice kept is reported last: a slice that wrote nothing fails the run, and
      // must not stop the others.
      return [
        ...actions.filter((a) => !isKeptFilesReport(a)),
        ...actions.filter(isKeptFilesReport),
      ];
    },
  });
}

/** `--default-tenant <id>`: the tenant existing rows take when an upgrade adds `tenant: true`. */
function defaultTenantOf(answers: EntityAnswers): { defaultTenant?: string } {
  const tenant = answers.defaultTenant ?? answers['default-tenant'];
  return typeof tenant === 'string' && tenant.trim() !== '' ? { defaultTenant: tenant } : {};
}
