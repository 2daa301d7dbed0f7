// The view of test/<folder>.test.ts: the request bodies the generated test sends and the DTO
// values it expects back, as data the template prints as literals.
import type { EntityModel, FieldModel, MethodModel, ParamModel } from '../../model/types.js';
import { referenceValues, sampleValue, wrongValue } from '../samples.js';
import { keepRules } from '../rule-samples.js';
import { alignDatesWithStatus } from '../status-dates.js';
import { accessTestsView } from './access-tests.js';
import { patchTestsView } from './patch-tests.js';
import { softDeleteTestsView } from './soft-delete-tests.js';
import { eachMethod, type SliceBase } from './base.js';
import { eventNameOf } from './events.js';
import { referenceSample, relationTestsView } from './relation-tests.js';
import { arrangeState, ruleBreaksView, ruleTestsView } from './rule-tests.js';
import { distinctFields } from './values.js';
import { fieldKinds } from '@slicekit/runtime/fields';

/**
 * A request body that passes validation, from sample row `row`; references name seeded rows, and
 * dates follow a status the body sets.
 */
function validBody(
  model: EntityModel,
  params: readonly ParamModel[],
  row: number,
  unique: ReadonlySet<FieldModel>,
): Record<string, unknown> {
  const body = new Map(
    params.map((p) => [
      p.name.camel,
      p.field?.reference
        ? referenceSample(model, p.field, row)
        : sampleValue(
            p,
            row,
            model.name.pascal,
            p.field !== undefined && unique.has(p.field),
            p.field ? referenceValues(model, p.field) : [],
          ),
    ]),
  );
  alignDatesWithStatus(
    params.map((p) => ({
      name: p.name.camel,
      type: p.type,
      values: p.values,
      nullable: !p.required,
      unique: p.field !== undefined && unique.has(p.field),
    })),
    body,
  );
  // The create request sets fields by their own names: the declared rules hold between them.
  const fields = params.filter((p) => p.field && p.name.camel === p.field.name.camel);
  const movable = fields.filter((p) => !unique.has(p.field!)).map((p) => p.name.camel);
  if (model.rules.length > 0 && fields.length === params.length) {
    keepRules(model, body, new Set(movable));
  }
  return Object.fromEntries(body);
}

/** The row a create with `createBody` stores, by property: what the body sets, else defaults. */
function createdRow(model: EntityModel, createBody: Record<string, unknown>): Map<string, unknown> {
  const row = new Map<string, unknown>();
  for (const f of model.fields) if (f.hasDefault) row.set(f.name.camel, f.default);
  for (const p of model.create) if (p.field) row.set(p.field.name.camel, createBody[p.name.camel]);
  return row;
}

/**
 * A method's body from sample row `row`, its values moved so the row it changes (created from
 * `created`) keeps every declared rule; and that row after the method, by property.
 */
function methodBody(
  model: EntityModel,
  method: MethodModel,
  row: number,
  unique: ReadonlySet<FieldModel>,
  created: ReadonlyMap<string, unknown>,
): { body: Record<string, unknown>; after: Map<string, unknown> } {
  const body = validBody(model, method.params, row, unique);
  const after = new Map(created);
  const movable = new Set<string>();
  for (const e of method.effects) {
    const name = e.field.name.camel;
    const source = e.source;
    if (source.kind === 'param') {
      after.set(name, body[source.param.name.camel]);
      if (!unique.has(e.field)) movable.add(name);
    } else if (source.kind === 'step') after.set(name, Number(after.get(name) ?? 0) + source.by);
    else if (source.kind === 'value') after.set(name, source.value);
    else after.delete(name);
  }
  keepRules(model, after, movable);
  for (const e of method.effects) {
    if (e.source.kind === 'param') body[e.source.param.name.camel] = after.get(e.field.name.camel);
  }
  return { body, after };
}

/** A value as the DTO answers it: date-times as ISO strings in UTC. */
function answered(type: FieldModel['type'], value: unknown): unknown {
  return type === 'date-time' && typeof value === 'string' ? new Date(value).toISOString() : value;
}

/** What the DTO must show after a method ran: the values its effects gave the row `after`. */
function expectedAfter(
  method: MethodModel,
  after: ReadonlyMap<string, unknown>,
  dto: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of method.effects) {
    const name = e.field.name.camel;
    if (!dto.has(name) || e.source.kind === 'now') continue;
    out[name] = answered(e.field.type, after.get(name));
  }
  return out;
}

/**
 * Methods the generated test runs at once: each changes fields no other one changes (audit fields
 * aside, which every save stamps), so every answered change must be in the final row. That holds
 * only when a change locks its row from load to commit.
 */
function concurrentChanges<M extends { hasExpected: boolean }>(
  model: EntityModel,
  methods: readonly M[],
): M[] {
  const taken = new Set<string>();
  return methods.filter((m, i) => {
    const fields = model.methods[i]!.effects.map((e) => e.field);
    // A method with preconditions may refuse a second call once the first changed the row.
    const guarded = model.methods[i]!.when.length > 0;
    // Ten steps at once end ten steps on, and may cross a bound.
    const steps = model.methods[i]!.effects.some((e) => e.source.kind === 'step');
    if (
      guarded ||
      steps ||
      !m.hasExpected ||
      fields.some((f) => f.role !== 'field' || taken.has(f.name.camel))
    ) {
      return false;
    }
    for (const f of fields) taken.add(f.name.camel);
    return true;
  });
}

export function sliceTestView(model: EntityModel, base: SliceBase) {
  const dtoNames = new Set(model.dto.map((f) => f.name.camel));
  const unique = distinctFields(model);
  const reference = model.referenceData;

  const createBody = validBody(model, model.create, 0, unique);
  const created = createdRow(model, createBody);
  const afters: Map<string, unknown>[] = [];
  const methods = eachMethod(model, base, (m, _, i) => {
    const { body, after } = methodBody(model, m, i + 1, unique, created);
    afters.push(after);
    const expected = expectedAfter(m, after, dtoNames);
    return {
      testBody: body,
      unknownBody: validBody(model, m.params, i + 2, unique),
      expected,
      hasExpected: Object.keys(expected).length > 0,
      // Column values its preconditions allow, written before calling it (rule-tests.ts).
      allowed: arrangeState(model, m.when),
      ownerMayCall: ownerMayCall(model, m.name.pascal),
    };
  });
  const createExpected = Object.fromEntries(
    model.create
      .filter((p) => dtoNames.has(p.name.camel))
      .map((p) => [
        p.name.camel,
        p.type === 'date-time'
          ? new Date(String(createBody[p.name.camel])).toISOString()
          : createBody[p.name.camel],
      ]),
  );
  // The bodies create<Entity>() takes: each test's rows are deleted after it, so two suffice.
  const samples = [createBody, validBody(model, model.create, 1, unique)];
  const createdEvent = model.events.find((event) => event.operation === 'Created');
  // A unique group the create request sets whole: a second create with the same body repeats it.
  const createNames = new Set(model.create.map((p) => p.name.camel));
  const duplicateGroup = [
    ...(reference ? [reference.key] : []),
    ...model.fields.filter((f) => f.unique).map((f) => [f]),
  ].find((group) => group.every((f) => createNames.has(f.name.camel)));

  const caseVariant = caseVariantBody(model, createBody, samples[1]!);
  const access = accessTestsView(model, base, methods);
  const relationTests = relationTestsView(model, base, (row) =>
    validBody(model, model.create, row, unique),
  );
  return {
    ...base,
    ...relationTests,
    methods,
    ownerMayDelete: ownerMayCall(model, 'delete'),
    ...access,
    ...patchTestsView(model, createExpected, samples[1]!, caseVariant),
    ...softDeleteTestsView(
      model,
      duplicateGroup?.map((f) => f.name.camel),
    ),
    // Callers are signed tokens: owners of rows, holders of roles.
    usesBearer: relationTests.usesBearer || base.access.length > 0 || access.hasAccess,
    ...ruleTestsView(model, methods),
    ...ruleBreaksView(
      model,
      methods,
      createBody,
      created,
      methods.map((m) => m.testBody),
      afters,
    ),
    /** `a product`, `an order`. */
    anEntity: `${/^[aeiou]/.test(model.name.words) ? 'an' : 'a'} ${model.name.words}`,
    firstMethod: methods[0],
    concurrentChanges: concurrentChanges(model, methods),
    idempotentList: model.idempotent.join(', '),
    createBody,
    createExpected,
    samples,
    duplicateFields: duplicateGroup?.map((f) => f.name.camel),
    caseVariant,
    testInvalid: model.validate && model.create.length > 0,
    invalidBody: Object.fromEntries(model.create.map((p) => [p.name.camel, wrongValue(p)])),
    invalidFields: model.create.map((p) => p.name.camel),
    createdEventName: createdEvent ? eventNameOf(model, createdEvent) : undefined,
    referenceRowCount: reference?.rows.length ?? 0,
    // What the list test expects: the two rows it created, plus the reference rows.
    listTotal: 2 + (reference?.rows.length ?? 0),
    // Fifty creates with one body: not for a table whose reference key or a field must be unique.
    testSequence: base.hasSequences && !reference && !model.fields.some((f) => f.unique),
    numberedColumn: base.numbered[0]?.column,
  };
}

/** `Ana@Example.com` for `aNA@eXAMPLE.COM`: each letter in the other case. */
const swapCase = (text: string) =>
  [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

/**
 * The second sample body with a case-ignoring unique field set to the first body's value in the
 * other case (a duplicate on every database), when the create request sets that field and the
 * variant is a value the field accepts (a pattern may refuse upper case).
 */
function caseVariantBody(
  model: EntityModel,
  first: Record<string, unknown>,
  second: Record<string, unknown>,
): { field: string; body: Record<string, unknown> } | undefined {
  for (const f of model.fields.filter((f) => f.ignoreCase)) {
    const value = first[f.name.camel];
    if (typeof value !== 'string' || !(f.name.camel in second)) continue;
    const variant = swapCase(value);
    if (variant === value || fieldKinds[f.type].problem(variant, f)) continue;
    return { field: f.name.camel, body: { ...second, [f.name.camel]: variant } };
  }
  return undefined;
}

/**
 * Whether a caller holding the roles that do not bypass ownership may call `operation`: the
 * ownership test checks its 404 for another caller's row only then (otherwise the role check
 * answers 403 first).
 */
function ownerMayCall(model: EntityModel, operation: string): boolean {
  const rule = model.access?.[operation];
  return !Array.isArray(rule) || rule.some((role) => !model.ownerBypass.includes(role));
}
