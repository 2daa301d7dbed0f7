// The view of test/<folder>.test.ts: the request bodies the generated test sends and the DTO
// values it expects back, as data the template prints as literals.
import type { EntityModel, FieldModel, MethodModel, ParamModel } from '../../model/types.js';
import { referenceValues, sampleValue, wrongValue } from '../samples.js';
import { alignDatesWithStatus } from '../status-dates.js';
import { eachMethod, type SliceBase } from './base.js';
import { eventNameOf } from './events.js';
import { referenceSample, relationTestsView } from './relation-tests.js';
import { arrangeState, ruleTestsView } from './rule-tests.js';
import { distinctFields } from './values.js';

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
  return Object.fromEntries(body);
}

/** A value as the DTO answers it: date-times as ISO strings in UTC. */
function answered(type: FieldModel['type'], value: unknown): unknown {
  return type === 'date-time' && typeof value === 'string' ? new Date(value).toISOString() : value;
}

/** What the DTO must show after a method ran with `body`. */
function expectedAfter(
  method: MethodModel,
  body: Record<string, unknown>,
  dto: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of method.effects) {
    const name = e.field.name.camel;
    if (!dto.has(name) || e.source.kind === 'now') continue;
    const value = e.source.kind === 'param' ? body[e.source.param.name.camel] : e.source.value;
    out[name] = answered(e.field.type, value);
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
    if (
      guarded ||
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

  const methods = eachMethod(model, base, (m, _, i) => {
    const body = validBody(model, m.params, i + 1, unique);
    const expected = expectedAfter(m, body, dtoNames);
    return {
      testBody: body,
      unknownBody: validBody(model, m.params, i + 2, unique),
      expected,
      hasExpected: Object.keys(expected).length > 0,
      // Column values its preconditions allow, written before calling it (rule-tests.ts).
      allowed: arrangeState(model, m.when),
    };
  });
  const createBody = validBody(model, model.create, 0, unique);
  const createdEvent = model.events.find((event) => event.operation === 'Created');
  // A unique group the create request sets whole: a second create with the same body repeats it.
  const createNames = new Set(model.create.map((p) => p.name.camel));
  const duplicateGroup = [
    ...(reference ? [reference.key] : []),
    ...model.fields.filter((f) => f.unique).map((f) => [f]),
  ].find((group) => group.every((f) => createNames.has(f.name.camel)));

  return {
    ...base,
    ...relationTestsView(model, base, (row) => validBody(model, model.create, row, unique)),
    methods,
    ...ruleTestsView(model, methods),
    /** `a product`, `an order`. */
    anEntity: `${/^[aeiou]/.test(model.name.words) ? 'an' : 'a'} ${model.name.words}`,
    firstMethod: methods[0],
    concurrentChanges: concurrentChanges(model, methods),
    idempotentList: model.idempotent.join(', '),
    createBody,
    createExpected: Object.fromEntries(
      model.create
        .filter((p) => dtoNames.has(p.name.camel))
        .map((p) => [
          p.name.camel,
          p.type === 'date-time'
            ? new Date(String(createBody[p.name.camel])).toISOString()
            : createBody[p.name.camel],
        ]),
    ),
    // The bodies create<Entity>() takes: each test's rows are deleted after it, so two suffice.
    samples: [createBody, validBody(model, model.create, 1, unique)],
    duplicateFields: duplicateGroup?.map((f) => f.name.camel),
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
