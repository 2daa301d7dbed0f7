// The view model templates render: every name, type and code fragment of a slice, computed once
// from the resolved entity model so the templates stay structural.
import type {
  EffectModel,
  EntityModel,
  FieldModel,
  MethodModel,
  ParamModel,
} from '../model/types.js';
import { literal, quote } from './literal.js';
import { sampleValue, stableUuid, wrongValue } from './samples.js';
import { dtoSchema, entityType, jsonType, requestSchema } from './schemas.js';

const SEED_ROWS = 5;

/** An entity value as a TypeScript expression: date-times are `Date`s on the entity. */
function entityValue(field: Pick<FieldModel, 'type'>, value: unknown): string {
  if (field.type === 'date-time' && typeof value === 'string') return `new Date(${quote(value)})`;
  return literal(value);
}

function initialValue(field: FieldModel): string {
  if (field.role === 'id') return 'randomUUID()';
  // Numbered by the Create handler from its sequence, right after construction.
  if (field.sequence) return field.type === 'integer' ? '0' : "''";
  if (field.type === 'date-time' && field.role === 'audit') return 'new Date()';
  if (field.hasDefault) return entityValue(field, field.default);
  return 'null';
}

function paramType(p: ParamModel): string {
  return entityType(p, !p.required);
}

function assignFromParam(field: FieldModel, p: ParamModel, fallback: string): string {
  const nullable = !p.required && field.notNull;
  return `this.${field.name.camel} = ${p.name.camel}${nullable ? ` ?? ${fallback}` : ''};`;
}

function effectLines(effect: EffectModel): string[] {
  const f = effect.field;
  const target = `this.${f.name.camel}`;
  const lines =
    f.name.camel === 'updatedBy'
      ? ['// Records the updater: the save keeps it instead of stamping the caller.']
      : [];
  switch (effect.source.kind) {
    case 'param':
      lines.push(assignFromParam(f, effect.source.param, target));
      break;
    case 'value':
      lines.push(`${target} = ${entityValue(f, effect.source.value)};`);
      break;
    case 'now':
      lines.push(
        f.type === 'date'
          ? `${target} = new Date().toISOString().slice(0, 10);`
          : `${target} = new Date();`,
      );
      break;
  }
  return lines;
}

/** How a handler passes a request property to the entity. */
function argument(p: ParamModel): string {
  const value = `request.${p.name.camel}`;
  if (p.type === 'date-time')
    return p.required ? `new Date(${value})` : `${value} ? new Date(${value}) : null`;
  return p.required ? value : `${value} ?? null`;
}

function requestInterface(params: readonly ParamModel[]): string[] {
  return params.map((p) => `${p.name.camel}${p.required ? '' : '?'}: ${jsonType(p, !p.required)};`);
}

/** A request body that passes validation, from sample row `row`. */
function validBody(
  params: readonly ParamModel[],
  row: number,
  seed: string,
  unique: ReadonlySet<FieldModel> = new Set(),
): Record<string, unknown> {
  return Object.fromEntries(
    params.map((p) => [
      p.name.camel,
      sampleValue(p, row, seed, p.field !== undefined && unique.has(p.field)),
    ]),
  );
}

/** What the DTO must show after a method ran with `body`. */
function expectedAfter(
  method: MethodModel,
  body: Record<string, unknown>,
  dto: Set<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of method.effects) {
    const name = e.field.name.camel;
    if (!dto.has(name) || e.source.kind === 'now') continue;
    const value = e.source.kind === 'param' ? body[e.source.param.name.camel] : e.source.value;
    out[name] =
      e.field.type === 'date-time' && typeof value === 'string'
        ? new Date(value).toISOString()
        : value;
  }
  return out;
}

function columnLine(f: FieldModel): string {
  const c = quote(f.column);
  let line: string;
  switch (f.type) {
    case 'string':
      line = `table.string(${c}, ${f.maxLength ?? 255})`;
      break;
    case 'decimal':
      line = `table.decimal(${c}, ${f.precision}, ${f.scale})`;
      break;
    case 'date-time':
      line = `table.datetime(${c}, { precision: 3 })`;
      break;
    case 'enum':
      line = `table.enu(${c}, ${literal(f.values)})`;
      break;
    default:
      line = `table.${f.type}(${c})`;
  }
  if (f.role === 'id') return `${line}.primary();`;
  if (f.notNull) line += '.notNullable()';
  // MySQL refuses literal defaults on TEXT and JSON, and date-time literals differ per database:
  // those defaults live in the entity's constructor only.
  if (f.hasDefault && f.default !== null && !['text', 'json', 'date-time'].includes(f.type)) {
    line += `.defaultTo(${literal(f.default)})`;
  }
  return `${line};`;
}

/** A known value as the column value a Knex insert takes. */
function columnValue(f: FieldModel, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (f.type === 'json') return `JSON.stringify(${literal(value)})`;
  if (f.type === 'date-time') return `new Date(${quote(String(value))})`;
  return literal(value);
}

/** The name an event declaration's events carry (as `eventName` in @slicekit/runtime/events). */
function eventNameOf(model: EntityModel, event: EntityModel['events'][number]): string {
  if (event.name) return event.name;
  const pascal = (n: string) => n.charAt(0).toUpperCase() + n.slice(1);
  return event.operation === 'Created'
    ? `${model.name.pascal}Created`
    : `${model.name.pascal}${event.fields.map(pascal).join('')}Updated`;
}

/** The typed payload of each event (what `JSON.parse` of the outbox row gives a subscriber). */
function eventTypes(model: EntityModel): { name: string; doc: string; lines: string[] }[] {
  const byName = new Map(model.fields.map((f) => [f.name.camel, f]));
  const member = (name: string) => {
    const f = byName.get(name)!;
    return `${name}: ${jsonType(f, !f.notNull)};`;
  };
  return model.events.map((event) => {
    const fields = event.fields.filter((f) => f !== 'id');
    const lines = ['id: string;', ...fields.map(member)];
    if (event.operation === 'Updated') {
      lines.push(`previous: { ${fields.map(member).join(' ')} };`);
    }
    const doc =
      event.operation === 'Created'
        ? `A ${model.name.words} was created.`
        : `${event.fields.join(', ')} of a ${model.name.words} changed (\`previous\` has the old values).`;
    return { name: eventNameOf(model, event), doc, lines };
  });
}

/** The constant a slice's `<entity>.sequences.ts` exports for a numbered field. */
function sequenceConst(model: EntityModel, f: FieldModel): string {
  return `${model.name.camel}${f.name.pascal}Sequence`;
}

/** The runtime function taking a numbered field's next value: the number, or it formatted. */
function nextFunction(f: FieldModel): 'nextNumber' | 'nextValue' {
  return f.type === 'integer' ? 'nextNumber' : 'nextValue';
}

/** The expression taking a numbered field's next value through `db`. */
function nextNumberCall(model: EntityModel, f: FieldModel, db: string): string {
  return `await ${nextFunction(f)}(${db}, ${sequenceConst(model, f)})`;
}

/** The `defineSequence` options of a numbered field, as a literal. */
function sequenceOptions(f: FieldModel): string {
  const s = f.sequence!;
  return literal({
    name: s.name,
    valueType: s.valueType,
    ...(f.type === 'string' ? { format: s.format } : {}),
    ...(s.start !== undefined ? { start: s.start } : {}),
    ...(s.max !== undefined ? { max: s.max } : {}),
  });
}

function seedValue(f: FieldModel, i: number, seed: string, unique: boolean): string {
  if (f.role === 'id') return quote(stableUuid(`${seed}:row:${i}`));
  if (f.role === 'owner') return quote('');
  if (f.role === 'audit') return f.type === 'date-time' ? 'now' : quote('seed');
  const value = sampleValue(f, i, seed, unique);
  return columnValue(f, value);
}

/**
 * Methods the generated test runs at once: each changes fields no other one changes (audit fields
 * aside, which every save stamps), so every answered change must be in the final row. That holds
 * only when a change locks its row from load to commit.
 */
function concurrentChanges<M extends { effects: EffectModel[]; hasExpected: boolean }>(
  methods: readonly M[],
): M[] {
  const taken = new Set<string>();
  const chosen: M[] = [];
  for (const m of methods) {
    const fields = m.effects.map((e) => e.field);
    if (!m.hasExpected || fields.some((f) => f.role !== 'field' || taken.has(f.name.camel))) {
      continue;
    }
    for (const f of fields) taken.add(f.name.camel);
    chosen.push(m);
  }
  return chosen;
}

/** Everything the entity templates read. */
export function entityView(
  model: EntityModel,
  options: { migrationName: string; specText: string },
) {
  const e = model.name;
  const seed = e.pascal;
  const own = model.fields.filter((f) => f.role === 'field');
  const dtoNames = new Set(model.dto.map((f) => f.name.camel));
  const collection = `/${model.resource}`;
  const apiPath = `/v1/${model.resource}`;
  // Fields every row must hold a value of its own: the reference-data key.
  const unique = new Set(model.referenceData?.key ?? []);
  const createParams = new Map(model.create.map((p) => [p.field!.name.camel, p]));
  const guarded = new Set(model.idempotent);
  const guard = (on: boolean) => (on ? 'requiredIdempotentKey(), ' : '');
  // In the generated tests, a guarded request carries a fresh key.
  const keyed = (on: boolean) => (on ? '.set(key())' : '');

  const methods = model.methods.map((m, i) => {
    const isGuarded = guarded.has(m.kind === 'update' ? 'Update' : 'Action');
    const route = `${collection}/:id${m.segment ? `/${m.segment}` : ''}`;
    const docPath = `${apiPath}/{id}${m.segment ? `/${m.segment}` : ''}`;
    const body = validBody(m.params, i + 1, seed, unique);
    const unknownBody = validBody(m.params, i + 2, seed, unique);
    const lines = m.effects.flatMap(effectLines);
    return {
      ...m,
      camel: m.name.camel,
      pascal: m.name.pascal,
      doc: `${m.name.pascal}: ${m.verb} ${docPath}${m.description ? `. ${m.description}` : ''}`,
      kindWord: m.kind === 'update' ? 'update' : 'action',
      httpMethod: m.verb.toLowerCase(),
      route,
      docPath,
      signature: m.params.map((p) => `${p.name.camel}: ${paramType(p)}`).join(', '),
      body: lines.length
        ? lines
        : ['// Write the change here; the handler saves whatever this method sets.'],
      args: m.params.map(argument).join(', '),
      hasParams: m.params.length > 0,
      requestType: m.params.length ? m.requestName : 'Record<string, never>',
      schemaName: `${m.requestName.charAt(0).toLowerCase()}${m.requestName.slice(1)}Schema`,
      schema: literal(requestSchema(m.params)),
      requestFields: requestInterface(m.params),
      testBody: literal(body),
      unknownBody: literal(unknownBody),
      expected: literal(expectedAfter(m, body, dtoNames)),
      hasExpected: Object.keys(expectedAfter(m, body, dtoNames)).length > 0,
      openApi: literal({
        kind: m.kind,
        name: m.name.pascal,
        ...(m.kind === 'update' && m.segment ? { segment: m.segment } : {}),
        ...(m.kind === 'action' && m.segment !== m.name.kebab ? { segment: m.segment } : {}),
        ...(m.kind === 'action' && m.verb !== 'POST' ? { method: m.verb.toLowerCase() } : {}),
        ...(m.requestName !== `${m.name.pascal}${e.pascal}Request`
          ? { requestName: m.requestName }
          : {}),
      }).replace(/ }$/, ''),
      last: i === model.methods.length - 1,
      guard: guard(isGuarded),
      key: keyed(isGuarded),
    };
  });

  const createBody = validBody(model.create, 0, seed, unique);
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
  const updates = methods.filter((m) => m.kind === 'update');
  const actions = methods.filter((m) => m.kind === 'action');
  const createdEvent = model.events.find((event) => event.operation === 'Created');
  const reference = model.referenceData;
  const numbered = model.fields.filter((f) => f.sequence);

  return {
    entity: e,
    plural: model.plural,
    table: model.table,
    resource: model.resource,
    folder: model.folder,
    apiPath,
    collection,
    isAudited: model.audited,
    isOwned: model.owned,
    validate: model.validate,
    description: model.description,
    migrationName: options.migrationName,
    specText: options.specText,
    // entity class
    properties: model.fields.map((f) => ({
      camel: f.name.camel,
      type: entityType(f, !f.notNull),
      doc:
        f.description ??
        (f.role === 'owner'
          ? 'The creator, stamped on insert: the row belongs to them.'
          : f.sequence
            ? `Numbered on create from the ${f.sequence.name} sequence (${e.kebab}.sequences.ts).`
            : undefined),
      firstAudit: f.name.camel === 'createdBy',
    })),
    constructorParams: model.create.map((p) => `${p.name.camel}: ${paramType(p)}`).join(', '),
    constructorBody: model.fields.map((f) => {
      const p = createParams.get(f.name.camel);
      return p
        ? assignFromParam(f, p, initialValue(f))
        : `this.${f.name.camel} = ${initialValue(f)};`;
    }),
    createArgs: model.create.map(argument).join(', '),
    methods,
    firstMethod: methods[0],
    concurrentChanges: concurrentChanges(methods),
    updateMethods: updates,
    actionMethods: actions,
    hasUpdates: updates.length > 0,
    hasActions: actions.length > 0,
    // sequences
    hasSequences: numbered.length > 0,
    sequenceDefinitions: numbered.map((f) => ({
      constName: sequenceConst(model, f),
      options: sequenceOptions(f),
      doc: `Numbers ${f.name.camel} of each new ${e.words}${f.type === 'string' ? ` as ${f.sequence!.format}` : ''}.`,
    })),
    sequenceImports: [...new Set(numbered.map(nextFunction))].sort(),
    sequenceConsts: numbered.map((f) => sequenceConst(model, f)),
    sequenceMigrationList: numbered.map((f) => `defineSequence(${sequenceOptions(f)})`).join(', '),
    numberLines: numbered.map(
      (f) => `${e.camel}.${f.name.camel} = ${nextNumberCall(model, f, 'this.#knex')};`,
    ),
    numberedColumn: numbered[0]?.column,
    // Fifty creates with one body: not for a table whose reference key must be unique.
    testSequence: numbered.length > 0 && !reference,
    // idempotency
    isIdempotent: guarded.size > 0,
    createGuard: guard(guarded.has('Create')),
    deleteGuard: guard(guarded.has('Delete')),
    createKey: keyed(guarded.has('Create')),
    deleteKey: keyed(guarded.has('Delete')),
    idempotentList: model.idempotent.join(', '),
    idempotentCreate: guarded.has('Create'),
    openApiIdempotent: {
      create: guarded.has('Create') ? ', idempotent: true' : '',
      update: guarded.has('Update') ? ', idempotent: true' : '',
      delete: guarded.has('Delete') ? ', idempotent: true' : '',
      action: guarded.has('Action') ? ', idempotent: true' : '',
    },
    // events
    hasEvents: model.events.length > 0,
    tableEvents: literal(
      model.events.map((e) => ({
        operation: e.operation,
        fields: e.fields,
        ...(e.name ? { name: e.name } : {}),
      })),
    ),
    eventTypes: eventTypes(model),
    createdEventName: createdEvent ? eventNameOf(model, createdEvent) : undefined,
    // reference data
    hasReferenceData: reference !== undefined,
    referenceKey: literal(reference?.key.map((f) => f.column) ?? []),
    referenceKeyNames: reference?.key.map((f) => f.name.camel) ?? [],
    referenceRowCount: reference?.rows.length ?? 0,
    // What the list test expects: the two rows it created, plus the reference rows.
    listTotal: 2 + (reference?.rows.length ?? 0),
    referenceRows: (reference?.rows ?? []).map((row) => {
      const identity = reference!.key.map((f) => String(row[f.name.camel])).join(':');
      const values = model.fields.map((f) => {
        if (f.role === 'id')
          return `${f.column}: ${quote(stableUuid(`${seed}:reference:${identity}`))}`;
        if (f.role === 'audit')
          return `${f.column}: ${f.type === 'date-time' ? 'appliedOn' : quote('')}`;
        return `${f.column}: ${columnValue(f, row[f.name.camel])}`;
      });
      return `{ ${values.join(', ')} },`;
    }),
    // table
    tableFields: [model.fields.find((f) => f.role === 'id')!, ...own].map(
      (f) => `${f.name.camel}: ${quote(f.type)},`,
    ),
    // DTO
    dtoSchema: literal(dtoSchema(model.dto)),
    dtoFields: model.dto.map((f) => `${f.name.camel}: ${jsonType(f, !f.notNull)};`),
    dtoAudited: model.audited && dtoNames.has('createdOn'),
    // requests
    createSchema: literal(requestSchema(model.create)),
    createFields: requestInterface(model.create),
    hasCreateParams: model.create.length > 0,
    // migration
    columns: model.fields.map(columnLine),
    indexes: [
      ...[...(model.audited ? ['created_on'] : []), ...(model.owned ? ['owned_by'] : [])].map(
        (c) => `table.index([${quote(c)}]);`,
      ),
      // Reference rows are found by their key, which must identify one row.
      ...(reference ? [`table.unique(${literal(reference.key.map((f) => f.column))});`] : []),
      // A sequence never hands out a value twice; the index says so and finds a row by it.
      ...numbered.map((f) => `table.unique([${quote(f.column)}]);`),
    ],
    // seed
    seedRows: Array.from(
      { length: SEED_ROWS },
      (_, i) =>
        `{ ${model.fields
          .map((f) => {
            const value = f.sequence
              ? nextNumberCall(model, f, 'knex')
              : seedValue(f, i, seed, unique.has(f));
            return `${f.column}: ${value}`;
          })
          .join(', ')} },`,
    ),
    // The audit time stamps are the only seed values that read `now`.
    seedUsesNow: model.fields.some((f) => f.role === 'audit' && f.type === 'date-time'),
    // test
    createBody: literal(createBody),
    createExpected: literal(createExpected),
    invalidBody: literal(
      Object.fromEntries(model.create.map((p) => [p.name.camel, wrongValue(p)])),
    ),
    invalidFields: literal(model.create.map((p) => p.name.camel)),
    testInvalid: model.validate && model.create.length > 0,
    secondBody: literal(validBody(model.create, 1, seed, unique)),
  };
}

export type EntityView = ReturnType<typeof entityView>;
